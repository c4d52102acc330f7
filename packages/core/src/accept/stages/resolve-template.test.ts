import { describe, expect, it } from 'vitest';
import type { EmailContent } from '@petrel/contracts';
import { emailContent, MemoryTemplates } from '@petrel/testing';
import { resolveTemplate } from './resolve-template.js';
import type { StageContext } from './stage.js';

const single: StageContext = { teamId: 'team', index: 0, batch: false };
const inBatch: StageContext = { teamId: 'team', index: 2, batch: true };

/** A template send: from and subject left to the template. */
const email = (over: Partial<EmailContent> = {}) =>
  emailContent({ from: '', subject: '', text: undefined, ...over });

async function setup() {
  const templates = new MemoryTemplates();
  const welcome = await templates.addPublished('team', {
    alias: 'welcome',
    from: 'Acme <hello@acme.test>',
    subject: 'Hi {{{NAME}}}',
    reply_to: ['help@acme.test'],
    html: '<p>{{{NAME}}} has {{{COUNT}}}</p>',
    variables: [
      { key: 'NAME', type: 'string' },
      { key: 'COUNT', type: 'number', fallback_value: 0 },
    ],
  });
  return { templates, welcome, stage: resolveTemplate(templates) };
}

describe('resolveTemplate', () => {
  it('leaves an email without template untouched and reads nothing', async () => {
    const { templates, stage } = await setup();
    const e = email({ from: 'a@acme.test', subject: 's', html: '<p>x</p>' });
    expect(await stage(e, single)).toEqual({ email: e });
    expect(templates.calls).toEqual([]);
  });

  it('applies from, subject (rendered) and reply_to from the template and pins the published version', async () => {
    const { stage, welcome } = await setup();
    const r = await stage(email({ template: { id: 'welcome', variables: { NAME: 'Ada' } } }), single);
    expect(r).toEqual({
      email: expect.objectContaining({
        from: 'Acme <hello@acme.test>',
        subject: 'Hi Ada',
        reply_to: ['help@acme.test'],
      }),
      template: { id: welcome.id, versionId: welcome.versionId },
    });
  });

  it("keeps the request's own from, subject and reply_to over the template's", async () => {
    const { stage } = await setup();
    const r = await stage(
      email({
        from: 'me@acme.test',
        subject: 'Mine',
        reply_to: ['mine@acme.test'],
        template: { id: 'welcome', variables: { NAME: 'Ada' } },
      }),
      single,
    );
    expect(r).toMatchObject({
      email: { from: 'me@acme.test', subject: 'Mine', reply_to: ['mine@acme.test'] },
    });
  });

  it.each([
    ['unknown', {}, "template.id: template 'nope' not found"],
    ['draft', {}, "template.id: template 'draft' is not published (publish it before sending)"],
  ])('refuses a %s template', async (_what, _vars, message) => {
    const { templates, stage } = await setup();
    await templates.create('team', {
      name: 'd',
      alias: 'draft',
      from: null,
      subject: null,
      reply_to: null,
      html: 'x',
      text: null,
      variables: [],
    });
    const id = message.includes("'nope'") ? 'nope' : 'draft';
    expect(await stage(email({ template: { id, variables: {} } }), single)).toEqual({ refused: { message } });
  });

  it('refuses a missing from or subject, naming the email in a batch', async () => {
    const { templates, stage } = await setup();
    await templates.addPublished('team', { alias: 'bare', html: '<p>x</p>' });
    expect(await stage(email({ subject: 's', template: { id: 'bare', variables: {} } }), inBatch)).toEqual({
      refused: { message: 'emails[2].from: is required (neither the request nor the template gives one)' },
    });
    expect(
      await stage(email({ from: 'a@acme.test', template: { id: 'bare', variables: {} } }), inBatch),
    ).toEqual({
      refused: { message: 'emails[2].subject: is required (neither the request nor the template gives one)' },
    });
  });

  it('refuses a string for a number variable, a missing value, and a line break in the subject', async () => {
    const { stage } = await setup();
    const ref = (variables: Record<string, string | number>) =>
      email({ template: { id: 'welcome', variables } });
    expect(await stage(ref({ NAME: 'Ada', COUNT: '3' }), single)).toEqual({
      refused: { message: 'template.variables.COUNT: must be a number (the template declares it as number)' },
    });
    expect(await stage(ref({}), single)).toEqual({
      refused: {
        message:
          'template.variables: missing value for NAME (the template uses them and declares no fallback)',
      },
    });
    expect(await stage(ref({ NAME: 'Ada\r\nBcc: x@evil.test' }), single)).toEqual({
      refused: {
        message:
          'template.variables.NAME: must not contain line breaks or control characters (it is used in the subject)',
      },
    });
  });

  it('reads a template once for the concurrent emails of one request', async () => {
    const { templates, stage } = await setup();
    const e = email({ template: { id: 'welcome', variables: { NAME: 'Ada' } } });
    await Promise.all([0, 1, 2, 3].map((index) => stage(e, { ...inBatch, index })));
    expect(templates.calls.filter((c) => c.method === 'getPublished')).toHaveLength(1);
    await stage(e, single);
    expect(templates.calls.filter((c) => c.method === 'getPublished')).toHaveLength(2);
  });

  it("does not resolve another team's template", async () => {
    const { stage } = await setup();
    const r = await stage(email({ template: { id: 'welcome', variables: { NAME: 'A' } } }), {
      ...single,
      teamId: 'other',
    });
    expect(r).toEqual({ refused: { message: "template.id: template 'welcome' not found" } });
  });
});
