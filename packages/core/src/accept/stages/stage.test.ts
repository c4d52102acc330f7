import { describe, expect, it } from 'vitest';
import type { EmailContent } from '@petrel/contracts';
import { emailContent } from '@petrel/testing';
import { checkTopic } from './check-topic.js';
import { fieldPrefix, prepareWith, refuse, type AcceptStage } from './stage.js';

const email = (subject: string, over: Partial<EmailContent> = {}) => emailContent({ subject, ...over });

describe('prepareWith', () => {
  it('runs the stages in order, each on what the one before left, and keeps the template pin', async () => {
    const seen: string[] = [];
    const upper: AcceptStage = async (e) => ({ email: { ...e, subject: e.subject.toUpperCase() } });
    const pin: AcceptStage = async (e) => {
      seen.push(e.subject);
      return { email: e, template: { id: 't', versionId: 'v' } };
    };
    const last: AcceptStage = async (e) => ({ email: { ...e, subject: `${e.subject}!` } });
    const r = await prepareWith([upper, pin, last]).prepare(
      'team',
      [{ index: 0, email: email('hi') }],
      'single',
    );
    expect(seen).toEqual(['HI']);
    expect(r).toEqual({
      emails: [{ index: 0, email: email('HI!'), template: { id: 't', versionId: 'v' } }],
      errors: [],
    });
  });

  it('stops an email at its first refusal; the others go on; both lists in request order', async () => {
    const calls: number[] = [];
    const oddRefused: AcceptStage = async (e, ctx) =>
      ctx.index % 2 ? refuse(`${fieldPrefix(ctx)}subject: odd`, 'invalid_parameter') : { email: e };
    const count: AcceptStage = async (e, ctx) => {
      calls.push(ctx.index);
      return { email: e };
    };
    const emails = [3, 0, 1, 2].map((index) => ({ index, email: email(`s${index}`) }));
    const r = await prepareWith([oddRefused, count]).prepare('team', emails, 'batch');
    expect(r.emails.map((e) => e.index)).toEqual([0, 2]);
    expect(r.errors).toEqual([
      { index: 1, name: 'invalid_parameter', message: 'emails[1].subject: odd' },
      { index: 3, name: 'invalid_parameter', message: 'emails[3].subject: odd' },
    ]);
    expect(calls.sort()).toEqual([0, 2]);
  });

  it('passes the team and the naming to every stage', async () => {
    const ctxs: unknown[] = [];
    const spy: AcceptStage = async (e, ctx) => {
      ctxs.push(ctx);
      return { email: e };
    };
    await prepareWith([spy]).prepare('team-9', [{ index: 0, email: email('x') }], 'single');
    expect(ctxs).toEqual([{ teamId: 'team-9', index: 0, batch: false }]);
  });
});

describe('checkTopic', () => {
  const topics = {
    lookups: 0,
    async get(_team: string, id: string) {
      this.lookups++;
      return id === 'news' ? ({ id } as never) : null;
    },
  };

  it('refuses an unknown topic_id (naming the email in a batch), passes a known one and none', async () => {
    let t = 0;
    const stage = checkTopic(topics, { now: () => t });
    expect(await stage(email('s', { topic_id: 'nope' }), { teamId: 't', index: 1, batch: true })).toEqual({
      refused: { message: 'emails[1].topic_id: no topic with this id exists' },
    });
    const known = email('s', { topic_id: 'news' });
    expect(await stage(known, { teamId: 't', index: 0, batch: false })).toEqual({ email: known });
    const plain = email('s');
    expect(await stage(plain, { teamId: 't', index: 0, batch: false })).toEqual({ email: plain });
    // a batch naming one topic looks it up once; a second later it is looked up again
    const before = topics.lookups;
    await Promise.all([0, 1, 2].map((index) => stage(known, { teamId: 't', index, batch: true })));
    expect(topics.lookups).toBe(before);
    t = 1_000;
    await stage(known, { teamId: 't', index: 0, batch: false });
    expect(topics.lookups).toBe(before + 1);
  });
});
