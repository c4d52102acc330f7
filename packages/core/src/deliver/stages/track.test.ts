import { describe, expect, it } from 'vitest';
import {
  emailToDeliver,
  memoryDeliverDeps,
  TEST_TRACKING_SECRET,
  type MemoryDeliverDeps,
} from '@petrel/testing';
import { deliverEmail, DELIVERY_STAGES } from '../deliver-email.js';
import type { EmailToDeliver } from '../../emails/record.js';
import { verifyClickToken, verifyOpenToken } from '../../tracking/tracking-token.js';

const TEAM = 'team-1';
const job = (email: EmailToDeliver) => ({ teamId: TEAM, emailId: email.id, attemptsMade: 0 });
const HTML =
  '<html><body><p>Hi</p><a href="https://shop.test/p?id=1&amp;ref=mail#top">shop</a>' +
  '<a href="mailto:help@acme.test">mail us</a></body></html>';

function setup(content: Partial<EmailToDeliver['content']> = {}) {
  const deps = memoryDeliverDeps();
  const email = emailToDeliver({ content: { html: HTML, ...content } });
  deps.emails.put(email);
  return { deps, email };
}

const tokenOf = (html: string, path: 't/o' | 't/c') =>
  [...html.matchAll(new RegExp(`https://petrel\\.test/${path}/([\\w.-]+)`, 'g'))].map((m) => m[1]!);

const now = (deps: MemoryDeliverDeps) => deps.clock.now();

describe('the track stage', () => {
  it('runs between render and decorate', () => {
    const names = DELIVERY_STAGES.map((s) => s.name);
    expect(names.indexOf('track')).toBe(names.indexOf('render') + 1);
    expect(names.indexOf('decorate')).toBe(names.indexOf('track') + 1);
  });

  it('leaves the html untouched when the team tracks nothing (the default)', async () => {
    const { deps, email } = setup();
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    expect(deps.mime.built).toHaveLength(1);
    expect(deps.mime.built[0]!.content.html).toBe(HTML);
    expect(deps.tracking.settings.reads).toBe(1);
  });

  it('opens: appends a pixel whose token names the team, email and recipient', async () => {
    const { deps, email } = setup();
    deps.tracking.settings.set(TEAM, { open: true });
    await deliverEmail(job(email), deps);
    const html = deps.mime.built[0]!.content.html!;
    // the links stay exactly as written
    expect(html).toContain('<a href="https://shop.test/p?id=1&amp;ref=mail#top">shop</a>');
    expect(html).toMatch(
      /<img src="https:\/\/petrel\.test\/t\/o\/[\w.-]+" width="1" height="1"[^>]*><\/body><\/html>$/,
    );
    const [token] = tokenOf(html, 't/o');
    expect(verifyOpenToken(token!, TEST_TRACKING_SECRET, now(deps))).toMatchObject({
      ok: true,
      claims: { teamId: TEAM, emailId: email.id, recipient: 'ada@example.test' },
    });
  });

  it('clicks: rewrites http(s) links to signed redirects carrying the exact URL; no pixel', async () => {
    const { deps, email } = setup();
    deps.tracking.settings.set(TEAM, { click: true });
    await deliverEmail(job(email), deps);
    const html = deps.mime.built[0]!.content.html!;
    expect(html).not.toContain('/t/o/');
    expect(html).toContain('<a href="mailto:help@acme.test">mail us</a>');
    const [token] = tokenOf(html, 't/c');
    expect(verifyClickToken(token!, TEST_TRACKING_SECRET, now(deps))).toMatchObject({
      ok: true,
      claims: {
        emailId: email.id,
        recipient: 'ada@example.test',
        url: 'https://shop.test/p?id=1&ref=mail#top',
      },
    });
    // a click token is no open token, and the other way round
    expect(verifyOpenToken(token!, TEST_TRACKING_SECRET, now(deps)).ok).toBe(false);
  });

  it('several recipients: one message each, with their own tokens; text-only mail is untouched', async () => {
    const { deps, email } = setup({ to: ['ada@example.test', 'bob@example.test'], cc: ['cy@example.test'] });
    deps.tracking.settings.set(TEAM, { open: true, click: true });
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    expect(deps.mime.built.map((b) => b.recipients)).toEqual([
      ['ada@example.test'],
      ['bob@example.test'],
      ['cy@example.test'],
    ]);
    for (const b of deps.mime.built) {
      const [open] = tokenOf(b.content.html!, 't/o');
      const [click] = tokenOf(b.content.html!, 't/c');
      const who = b.recipients[0];
      expect(verifyOpenToken(open!, TEST_TRACKING_SECRET, now(deps))).toMatchObject({
        claims: { recipient: who },
      });
      expect(verifyClickToken(click!, TEST_TRACKING_SECRET, now(deps))).toMatchObject({
        claims: { recipient: who },
      });
      // the same headers and content otherwise
      expect(b.content.to).toEqual(['ada@example.test', 'bob@example.test']);
    }

    const text = setup({ html: undefined, text: 'Visit https://shop.test/' });
    text.deps.tracking.settings.set(TEAM, { open: true, click: true });
    await deliverEmail(job(text.email), text.deps);
    expect(text.deps.mime.built[0]!.content).toMatchObject({ text: 'Visit https://shop.test/' });
    expect(text.deps.mime.built[0]!.content.html).toBeUndefined();
  });

  it('click tracking on an html without links changes nothing', async () => {
    const { deps, email } = setup({ html: '<p>no links</p>' });
    deps.tracking.settings.set(TEAM, { click: true });
    await deliverEmail(job(email), deps);
    expect(deps.mime.built[0]!.content.html).toBe('<p>no links</p>');
  });
});
