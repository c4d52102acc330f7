/**
 * The request log (`resend.logs.list`, `resend.logs.get`) and usage (`resend.usage.get`) through
 * the official SDK, against the whole stack: requests appear with their bodies, secrets never
 * (API keys, webhook signing secrets, attachment contents cut), cursors and Petrel's filters page
 * the log, bad parameters are 422s naming the field; usage counts move as mail is sent and
 * received, and its daily figure is the quota the send path enforces (set with the CLI).
 */
import { describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { waitUntil } from '@petrel/testing';
import { email, petrelCli, fileStack } from './helpers.js';
import { receivedEmail } from './team-resources.js';

const stack = fileStack();

const cli = (...args: string[]) => petrelCli(stack)(...args);

/** A new team with its own full-access key (through the CLI), and an SDK client of it. */
async function newTeam(name: string): Promise<{ team: string; token: string; resend: Resend }> {
  const team = (await cli('teams', 'create', name)).stdout.trim();
  const token = /token: (re_\S+)/.exec(
    (await cli('keys', 'create', '--name', name, '--team', team)).stdout,
  )![1]!;
  return { team, token, resend: new Resend(token, { baseUrl: stack.baseUrl }) };
}

type Summary = { id: string; endpoint: string; method: string; response_status: number };

/** Every log of the client's team, newest first (following the cursors). */
async function allLogs(resend: Resend): Promise<Summary[]> {
  const out: Summary[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await resend.logs.list({ limit: 100, ...(after && { after }) });
    expect(page.error).toBeNull();
    out.push(...page.data!.data);
    if (!page.data!.has_more) return out;
    after = out.at(-1)!.id;
  }
}

/** Waits for the log of a request matching `match` (logs are written just after the response). */
const logOf = (resend: Resend, match: (s: Summary) => boolean, what: string): Promise<Summary> =>
  waitUntil(async () => (await allLogs(resend)).find(match), { message: `the log of ${what}` });

describe('logs', () => {
  it('logs a request with its endpoint, method, status, user agent, time and both bodies', async () => {
    const { resend } = await newTeam('logs-bodies');
    const content = Buffer.from('x'.repeat(5000)).toString('base64');
    const before = Date.now();
    const sent = await resend.emails.send({
      ...email(1),
      subject: 'logged send',
      attachments: [{ filename: 'big.txt', content }],
    } as never);
    expect(sent.error).toBeNull();
    const found = await logOf(resend, (s) => s.endpoint === '/emails' && s.method === 'POST', 'POST /emails');
    const got = await resend.logs.get(found.id);
    expect(got.error).toBeNull();
    const log = got.data!;
    expect(log).toMatchObject({
      object: 'log',
      id: found.id,
      endpoint: '/emails',
      method: 'POST',
      response_status: 200,
      response_body: { id: sent.data!.id },
      request_body: { subject: 'logged send', from: 'Acme <sender@acme.test>', to: ['user1@example.test'] },
    });
    expect(log.user_agent).toMatch(/^resend-node:/);
    expect(Date.parse(log.created_at)).toBeGreaterThanOrEqual(before - 1000);
    const attachment = (log.request_body as { attachments: { filename: string; content: string }[] })
      .attachments[0]!;
    expect(attachment.filename).toBe('big.txt');
    expect(attachment.content).toMatch(
      new RegExp(`^${content.slice(0, 32)}…\\(truncated, ${content.length} characters\\)$`),
    );
    // the list shows no bodies
    expect(Object.keys((await resend.logs.list()).data!.data[0]!).sort()).toEqual(
      ['created_at', 'endpoint', 'id', 'method', 'response_status', 'user_agent'].sort(),
    );
  });

  it('never stores an API key, a webhook signing secret or a key pasted into a body', async () => {
    const { resend, token } = await newTeam('logs-secrets');
    const key = await resend.apiKeys.create({ name: 'secret-holder' });
    const hook = await resend.webhooks.create({
      endpoint: 'http://127.0.0.1:9/hook',
      events: ['email.sent'],
    });
    expect(key.error).toBeNull();
    expect(hook.error).toBeNull();
    const rotated = await resend.webhooks.rotateSigningSecret(hook.data!.id);
    expect(rotated.error).toBeNull();
    const secrets = [key.data!.token, hook.data!.signing_secret, token];
    const pasted = await resend.emails.send({ ...email(2), text: `the key is ${key.data!.token}` } as never);
    expect(pasted.error).toBeNull();
    const logs = await waitUntil(
      async () => {
        const all = await allLogs(resend);
        return all.some((s) => s.endpoint === '/emails') && all.some((s) => s.endpoint === '/webhooks')
          ? all
          : undefined;
      },
      { message: 'the logs of the key, webhook and email requests' },
    );
    const full = await Promise.all(logs.map(async (s) => (await resend.logs.get(s.id)).data));
    const text = JSON.stringify(full);
    for (const s of secrets) expect(text).not.toContain(s);
    const created = full.find((l) => l!.endpoint === '/api-keys' && l!.method === 'POST')!;
    expect(created.response_body).toMatchObject({ id: key.data!.id, token: '[redacted]' });
    const hookLog = full.find((l) => l!.endpoint === '/webhooks' && l!.method === 'POST')!;
    expect(hookLog.response_body).toMatchObject({ id: hook.data!.id, signing_secret: '[redacted]' });
    const emailLog = full.find((l) => l!.endpoint === '/emails')!;
    expect((emailLog.request_body as { text: string }).text).toBe('the key is re_[redacted]');
  });

  it('pages with after and before, newest first, and filters by method, status and endpoint', async () => {
    const { resend, token } = await newTeam('logs-pages');
    for (let i = 0; i < 5; i++) expect((await resend.segments.create({ name: `s${i}` })).error).toBeNull();
    expect((await stack.http('/segments', { method: 'POST', key: token, body: '{}' })).status).toBe(422);
    expect((await resend.segments.list()).error).toBeNull();
    const all = await waitUntil(async () => {
      const logs = await allLogs(resend);
      return logs.length >= 7 ? logs : undefined;
    });
    expect(all.map((s) => `${s.method} ${s.response_status}`)).toEqual([
      'GET 200',
      'POST 422',
      ...Array<string>(5).fill('POST 201'),
    ]);
    const first = await resend.logs.list({ limit: 3 });
    expect(first.data).toMatchObject({ object: 'list', has_more: true });
    expect(first.data!.data.map((s) => s.id)).toEqual(all.slice(0, 3).map((s) => s.id));
    const second = await resend.logs.list({ limit: 3, after: all[2]!.id });
    expect(second.data!.data.map((s) => s.id)).toEqual(all.slice(3, 6).map((s) => s.id));
    const last = await resend.logs.list({ limit: 3, after: all[5]!.id });
    expect(last.data).toMatchObject({ has_more: false });
    expect(last.data!.data.map((s) => s.id)).toEqual([all[6]!.id]);
    const back = await resend.logs.list({ limit: 2, before: all[4]!.id });
    expect(back.data!.data.map((s) => s.id)).toEqual(all.slice(2, 4).map((s) => s.id));
    expect(back.data!.has_more).toBe(true);

    const filtered = async (query: string) =>
      ((await stack.http(`/logs?${query}`, { key: token })).body as { data: Summary[] }).data;
    expect((await filtered('status=4xx')).map((s) => s.id)).toEqual([all[1]!.id]);
    expect((await filtered('status=201&limit=2')).map((s) => s.id)).toEqual(all.slice(2, 4).map((s) => s.id));
    expect((await filtered('method=get&endpoint=/segments')).map((s) => s.id)).toEqual([all[0]!.id]);
    expect(await filtered('endpoint=/emails')).toEqual([]);
  });

  it('answers bad parameters with 422 naming the field, an unknown id with 404', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['after=nope', 'after'],
      ['status=abc', 'status'],
      ['method=FETCH', 'method'],
      ['endpoint=emails', 'endpoint'],
    ]) {
      const res = await stack.http(`/logs?${query}`);
      expect(res.status, query).toBe(422);
      expect(res.body).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(
        (res.body as { message: string }).message.startsWith(`${field}:`),
        JSON.stringify(res.body),
      ).toBe(true);
    }
    for (const id of ['nope', '0192f0c2-7d3e-7a1b-8c2d-3e4f5a6b7c8d']) {
      const got = await stack.resend.logs.get(id);
      expect(got.error).toMatchObject({ statusCode: 404, name: 'not_found' });
    }
  });
});

describe('usage', () => {
  it('counts sent emails against the daily quota set with the CLI, as the send path enforces it', async () => {
    const { team, resend } = await newTeam('usage-quota');
    const start = await resend.usage.get();
    expect(start.error).toBeNull();
    expect(start.data).toMatchObject({
      object: 'usage',
      emails: { daily: { used: 0, limit: null, sent: 0, received: 0 }, monthly: { used: 0, sent: 0 } },
      contacts: { used: 0, limit: null },
      segments: { used: 0 },
      broadcasts: { used: 0, limit: null },
      domains: { used: 0 },
      rate_limit: { limit: null },
    });
    const midnight = new Date(start.data!.emails.daily.resets_at);
    expect(midnight.getTime() - Date.now()).toBeLessThanOrEqual(86_400_000);
    expect(midnight.toISOString()).toMatch(/T00:00:00\.000Z$/);

    expect(
      (await cli('team', 'limits', '--team', team, '--daily-quota', '3', '--rps', '1000')).stdout,
    ).toContain('3 emails per UTC day');
    expect((await resend.emails.send(email(1) as never)).error).toBeNull();
    const batch = await resend.batch.send([email(2), email(3)] as never);
    expect(batch.error).toBeNull();
    const full = await resend.usage.get();
    expect(full.data!.emails.daily).toMatchObject({ used: 3, limit: 3, sent: 3 });
    expect(full.data!.emails.monthly).toMatchObject({ used: 3, sent: 3 });
    expect(full.data!.rate_limit).toEqual({ limit: 1000, duration: '1s' });
    // the quota's limit shown is the one enforced: the next email is refused, and nothing counts
    const refused = await resend.emails.send(email(4) as never);
    expect(refused.error).toMatchObject({ statusCode: 429, name: 'daily_quota_exceeded' });
    expect((await resend.usage.get()).data!.emails.daily).toMatchObject({ used: 3, limit: 3, sent: 3 });

    await cli('team', 'limits', '--team', team, '--daily-quota', 'default', '--rps', 'default');
    const lifted = await resend.usage.get();
    expect(lifted.data!.emails.daily).toMatchObject({ used: 3, limit: null, sent: 3 });
    expect(lifted.data!.rate_limit.limit).toBeNull();
  });

  it('counts contacts, segments, broadcasts and domains as they are created and removed', async () => {
    const { resend } = await newTeam('usage-counts');
    const segment = await resend.segments.create({ name: 'u' });
    const c1 = await resend.contacts.create({ email: 'u1@example.test' });
    await resend.contacts.create({ email: 'u2@example.test' });
    await resend.domains.create({ name: 'usage-counts.example.test' });
    const draft = await resend.broadcasts.create({
      segmentId: segment.data!.id,
      from: 'news@acme.test',
      subject: 'hi',
      html: '<p>hi</p>',
    });
    expect(draft.error).toBeNull();
    expect((await resend.usage.get()).data).toMatchObject({
      contacts: { used: 2 },
      segments: { used: 1 },
      broadcasts: { used: 1 },
      domains: { used: 1 },
    });
    await resend.contacts.remove({ id: c1.data!.id });
    expect((await resend.usage.get()).data!.contacts.used).toBe(1);
  });

  it('counts received emails and automation runs of the day and month', async () => {
    const before = (await stack.resend.usage.get()).data!;
    await receivedEmail(stack, 'usage-received');
    const event = 'usage.signed_up';
    const automation = await stack.resend.automations.create({
      name: 'usage',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: event } },
        { key: 'later', type: 'delay', config: { duration: '1 day' } },
      ],
      connections: [{ from: 'start', to: 'later', type: 'default' }],
    });
    expect(automation.error).toBeNull();
    expect((await stack.resend.events.send({ event, email: 'usage-run@example.test' })).error).toBeNull();
    const after = await waitUntil(
      async () => {
        const u = (await stack.resend.usage.get()).data!;
        return u.automation_runs.used > before.automation_runs.used ? u : undefined;
      },
      { message: 'the automation run to be counted' },
    );
    expect(after.emails.daily.received).toBe(before.emails.daily.received + 1);
    expect(after.emails.monthly.received).toBe(before.emails.monthly.received + 1);
    expect(after.automation_runs.used).toBe(before.automation_runs.used + 1);
  });
});
