/**
 * A sent email's attachments (`emails.attachments.list/get`) and shared links (`emails.share`)
 * through the official SDK against the whole stack: the download links and the shared page
 * work without an API key (the signed token is the credential), give back exactly what was sent,
 * show the html only inside a sandboxed frame under a strict CSP, and stop working when tampered
 * with, expired, or when the email's record is gone (as the retention removes it, or as
 * `DELETE /emails/:id`, a Petrel extension, removes it at once).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { otherTeam, startStack, type Stack } from './helpers.js';
import { receivedEmail } from './team-resources.js';

let stack: Stack;
/** A recipient domain whose SMTP sessions stall after DATA: its emails stay on their way. */
const HELD = 'held.e2e.test';
beforeAll(async () => {
  stack = await startStack({ plan: { [HELD]: [{ at: 'data', stall: true }] } });
});
afterAll(async () => {
  await stack?.stop();
});

/** A plain GET without any credential but the URL, as a browser or the SDK's own fetch makes it. */
const anonymous = async (url: string) => {
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
};

/** A plain-text email from the stack's team: its id. */
async function sendText(
  to: string,
  subject: string,
  text: string,
  extra: { scheduledAt?: string } = {},
): Promise<string> {
  const sent = await stack.resend.emails.send({ from: 'hello@acme.test', to, subject, text, ...extra });
  expect(sent.error).toBeNull();
  return sent.data!.id;
}

/** The same token with one character of its signature changed. */
const tampered = (url: string): string => {
  const last = url.at(-2) === 'A' ? 'B' : 'A';
  return `${url.slice(0, -2)}${last}${url.at(-1)}`;
};

describe('sent email attachments', () => {
  it('list and get through the SDK; each download_url serves the bytes that were sent, without a key', async () => {
    const pdf = randomBytes(3000);
    const png = randomBytes(200);
    const sent = await stack.resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to: 'attachments@example.test',
      subject: 'Your invoice',
      html: '<p>Invoice attached <img src="cid:logo"></p>',
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64') },
        { filename: 'logo.png', content: png.toString('base64'), contentId: 'logo' },
        {
          filename: 'notes.txt',
          content: Buffer.from('plain notes').toString('base64'),
          contentType: 'text/plain',
        },
      ],
    });
    expect(sent.error).toBeNull();
    const emailId = sent.data!.id;

    const listed = await stack.resend.emails.attachments.list({ emailId });
    expect(listed.error).toBeNull();
    expect(listed.data!.object).toBe('list');
    expect(listed.data!.has_more).toBe(false);
    const [invoice, logo, notes] = listed.data!.data;
    expect(listed.data!.data).toHaveLength(3);
    expect(invoice).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      filename: 'invoice.pdf',
      size: 3000,
      content_type: 'application/pdf',
      content_disposition: 'attachment',
    });
    expect(logo).toMatchObject({
      filename: 'logo.png',
      content_type: 'image/png',
      content_disposition: 'inline',
      content_id: 'logo',
    });
    expect(notes).toMatchObject({ filename: 'notes.txt', content_type: 'text/plain', size: 11 });
    expect(new Set([invoice!.id, logo!.id, notes!.id]).size).toBe(3);
    // short-lived: an hour, like a received email's links
    const ttl = Date.parse(invoice!.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(3_000_000);
    expect(ttl).toBeLessThanOrEqual(3_600_000);

    // the same ids on every read, and get answers one of them
    const again = await stack.resend.emails.attachments.list({ emailId });
    expect(again.data!.data.map((a) => a.id)).toEqual([invoice!.id, logo!.id, notes!.id]);
    const got = await stack.resend.emails.attachments.get({ emailId, id: logo!.id.toUpperCase() });
    expect(got.error).toBeNull();
    expect(got.data).toMatchObject({ object: 'attachment', id: logo!.id, filename: 'logo.png', size: 200 });

    // pages in the message's order
    const first = await stack.http(`/emails/${emailId}/attachments?limit=2`);
    expect(first.body).toMatchObject({ has_more: true, data: [{ id: invoice!.id }, { id: logo!.id }] });
    const rest = await stack.http(`/emails/${emailId}/attachments?limit=2&after=${logo!.id}`);
    expect(rest.body).toMatchObject({ has_more: false, data: [{ id: notes!.id }] });

    // the bytes, without an API key, served so that they never run as a page of this origin
    for (const [a, bytes] of [
      [invoice!, pdf],
      [got.data!, png],
      [notes!, Buffer.from('plain notes')],
    ] as const) {
      const download = await anonymous(a.download_url);
      expect(download.status).toBe(200);
      expect(download.bytes.equals(bytes)).toBe(true);
      expect(download.headers.get('content-type')).toContain(a.content_type);
      expect(download.headers.get('content-disposition')).toBe(
        `attachment; filename="${a.filename}"; filename*=UTF-8''${a.filename}`,
      );
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      expect(download.headers.get('content-security-policy')).toContain('sandbox');
    }
    expect((await anonymous(tampered(invoice!.download_url))).status).toBe(404);
    // a sent email's link is not a received email's, and back
    const receivedPath = invoice!.download_url.replace('/emails/downloads/', '/emails/receiving/downloads/');
    expect((await anonymous(receivedPath)).status).toBe(404);
  });

  it("another team's key gets 404 for the email's attachments and share", async () => {
    const sent = await stack.resend.emails.send({
      from: 'hello@acme.test',
      to: 'isolated@example.test',
      subject: 'Mine',
      text: 'x',
      attachments: [{ filename: 'a.txt', content: Buffer.from('a').toString('base64') }],
    });
    const emailId = sent.data!.id;
    const [own] = (await stack.resend.emails.attachments.list({ emailId })).data!.data;
    const { key: other } = await otherTeam(stack, 'other');
    for (const [method, path] of [
      ['GET', `/emails/${emailId}/attachments`],
      ['GET', `/emails/${emailId}/attachments/${own!.id}`],
      ['POST', `/emails/${emailId}/share`],
    ] as const) {
      const res = await stack.http(path, { method, key: other, ...(method === 'POST' && { body: '{}' }) });
      expect(res, `${method} ${path}`).toMatchObject({ status: 404, body: { name: 'not_found' } });
    }
  });

  it('an email without attachments lists none; unknown ids and bad cursors are clear 4xx', async () => {
    const emailId = await sendText('none@example.test', 'No files', 'hi');
    expect((await stack.resend.emails.attachments.list({ emailId })).data).toEqual({
      object: 'list',
      has_more: false,
      data: [],
    });
    const missing = await stack.resend.emails.attachments.get({
      emailId,
      id: '0190a000-0000-7000-8000-000000000000',
    });
    expect(missing.error).toMatchObject({ statusCode: 404, name: 'not_found' });
    const noEmail = await stack.resend.emails.attachments.list({
      emailId: '0190a000-0000-7000-8000-000000000000',
    });
    expect(noEmail.error).toMatchObject({ statusCode: 404, name: 'not_found' });
    const badLimit = await stack.http(`/emails/${emailId}/attachments?limit=0`);
    expect(badLimit).toMatchObject({ status: 422, body: { message: expect.stringMatching(/^limit: /) } });
  });
});

describe('shared email links', () => {
  it('a shared link shows the email without a key: html only in a sandboxed frame, under a strict CSP', async () => {
    const html =
      '<h1 style="color:red">Hello &amp; welcome</h1><script>document.title="pwned"</script>' +
      '<img src="http://127.0.0.1:9/pixel.gif"><p>Body text</p>';
    const sent = await stack.resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to: ['share@example.test'],
      cc: 'copy@example.test',
      subject: 'Shared <subject> & more',
      html,
    });
    const emailId = sent.data!.id;
    const shared = await stack.resend.emails.share(emailId, { expiresIn: '2 hours' });
    expect(shared.error).toBeNull();
    expect(shared.data).toEqual({
      object: 'email',
      id: emailId,
      url: expect.stringMatching(/\/shared\/[\w-]+\.[\w-]+$/),
    });
    const url = shared.data!.url;
    // under the public URL (PUBLIC_URL, else this host and port)
    expect(new URL(url).port).toBe(new URL(stack.baseUrl).port);

    const page = await anonymous(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    expect(page.headers.get('cache-control')).toBe('private, no-store');
    const text = page.bytes.toString('utf8');
    // the fields, escaped; the email's html is not part of the page
    expect(text).toContain('Shared &lt;subject&gt; &amp; more');
    expect(text).toContain('Acme &lt;hello@acme.test&gt;');
    expect(text).toContain('copy@example.test');
    expect(text).not.toContain('<script');
    expect(text).not.toContain('pixel.gif');
    const frameSrc = /<iframe sandbox src="([^"]+)"/.exec(text)?.[1];
    expect(frameSrc).toBeDefined();

    const frame = await anonymous(new URL(frameSrc!, url).toString());
    expect(frame.status).toBe(200);
    expect(frame.bytes.toString('utf8')).toBe(html);
    const frameCsp = frame.headers.get('content-security-policy')!;
    expect(frameCsp).toMatch(/^sandbox;/);
    expect(frameCsp).toContain("default-src 'none'");
    expect(frameCsp).toContain('img-src data:');

    // expiry as asked: two hours from now
    const expires = /expires at (\S+)\./.exec(text)?.[1];
    const left = Date.parse(expires!) - Date.now();
    expect(left).toBeGreaterThan(7_000_000);
    expect(left).toBeLessThanOrEqual(7_200_000);

    // tampered: a 404 page, not the email
    const bad = await anonymous(tampered(url));
    expect(bad.status).toBe(404);
    expect(bad.headers.get('content-type')).toMatch(/^text\/html/);
    expect(bad.bytes.toString('utf8')).not.toContain('&lt;subject&gt;');
    expect((await anonymous(`${tampered(url)}/html`)).status).toBe(404);
  });

  it('an expired link is a 4xx page; a link dies with its email; a received email can be shared too', async () => {
    const emailId = await sendText('expiring@example.test', 'Short-lived', 'plain body only');
    const short = (await stack.resend.emails.share(emailId, { expiresIn: '1s' })).data!.url;
    const long = (await stack.resend.emails.share(emailId)).data!.url;
    // default: 48 hours
    const longPage = await anonymous(long);
    expect(longPage.status).toBe(200);
    expect(longPage.bytes.toString('utf8')).toContain('<pre>plain body only</pre>');
    const left = Date.parse(/expires at (\S+)\./.exec(longPage.bytes.toString('utf8'))![1]!) - Date.now();
    expect(left).toBeGreaterThan(47 * 3_600_000);
    expect(left).toBeLessThanOrEqual(48 * 3_600_000);
    // no html: no frame document
    expect((await anonymous(`${long}/html`)).status).toBe(404);

    await waitUntil(async () => (await anonymous(short)).status === 404, {
      timeoutMs: 10_000,
      message: 'the one-second link to expire',
    });

    // the email's record removed, as the retention removes it: every link to it is dead
    const [recordKey] = await stack.admin.keys(stack.keys.email('*', emailId));
    expect(recordKey).toBeDefined();
    await stack.admin.del(recordKey!);
    expect((await stack.resend.emails.get(emailId)).error).toMatchObject({ statusCode: 404 });
    expect((await anonymous(long)).status).toBe(404);

    const received = await receivedEmail(stack, 'shared-inbound');
    const receivedLink = await stack.resend.emails.share(received.id, { expiresIn: '10m' });
    expect(receivedLink.error).toBeNull();
    const receivedPage = await anonymous(receivedLink.data!.url);
    expect(receivedPage.status).toBe(200);
    expect(receivedPage.bytes.toString('utf8')).toContain('shared-inbound received');
  });

  it('bad input is a 422 naming expires_in; an unknown email a 404', async () => {
    const id = await sendText('bad@example.test', 'x', 'x');
    for (const [expiresIn, message] of [
      ['3 days', 'expires_in: must be at most 48 hours'],
      ['49h', 'expires_in: must be at most 48 hours'],
      ['soon', /^expires_in: is not a duration/],
      ['0s', 'expires_in: must be longer than zero'],
    ] as const) {
      const res = await stack.resend.emails.share(id, { expiresIn });
      expect(res.error, expiresIn).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
        message: typeof message === 'string' ? message : expect.stringMatching(message),
      });
    }
    const typed = await stack.http(`/emails/${id}/share`, {
      method: 'POST',
      body: JSON.stringify({ expires_in: 5 }),
    });
    expect(typed).toMatchObject({ status: 422, body: { message: expect.stringContaining('expires_in') } });
    const unknown = await stack.resend.emails.share('0190a000-0000-7000-8000-000000000000');
    expect(unknown.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });
});

describe('DELETE /emails/:id (a Petrel extension)', () => {
  const remove = (id: string, key?: string) =>
    stack.http(`/emails/${id}`, { method: 'DELETE', ...(key !== undefined && { key }) });

  it('deletes a delivered email: its share link and attachment links are 4xx pages at once, it is gone from reads, its counts stay', async () => {
    const to = `deleted.${Date.now().toString(36)}@example.test`;
    const sent = await stack.resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to,
      subject: 'Delete me later',
      html: '<p>private</p>',
      attachments: [{ filename: 'secret.txt', content: Buffer.from('secret').toString('base64') }],
    });
    expect(sent.error).toBeNull();
    const id = sent.data!.id;
    await waitUntil(async () => (await stack.resend.emails.get(id)).data?.last_event === 'delivered', {
      timeoutMs: 30_000,
      message: 'the email to be delivered',
    });
    const shared = (await stack.resend.emails.share(id)).data!.url;
    const [file] = (await stack.resend.emails.attachments.list({ emailId: id })).data!.data;
    expect((await anonymous(shared)).status).toBe(200);
    expect((await anonymous(`${shared}/html`)).status).toBe(200);
    expect((await anonymous(file!.download_url)).status).toBe(200);
    const received = async () => (await stack.resend.emails.metrics({ metrics: ['received'] })).data!.totals;
    const countsBefore = await received();

    const deleted = await remove(id);
    expect(deleted).toMatchObject({ status: 200, body: { object: 'email', id, deleted: true } });

    for (const url of [shared, `${shared}/html`, file!.download_url]) {
      const dead = await anonymous(url);
      expect(dead.status, url).toBe(404);
      expect(dead.headers.get('content-type'), url).toMatch(/^text\/html/);
      expect(dead.bytes.toString('utf8'), url).not.toContain('private');
    }
    expect((await stack.resend.emails.get(id)).error).toMatchObject({ statusCode: 404 });
    expect((await stack.resend.emails.attachments.list({ emailId: id })).error).toMatchObject({
      statusCode: 404,
    });
    const listed = await stack.http(`/emails?to=${encodeURIComponent(to)}`);
    expect(listed).toMatchObject({ status: 200, body: { data: [] } });
    // metrics are history: what was counted stays counted
    expect(await received()).toEqual(countsBefore);
    expect(await remove(id)).toMatchObject({ status: 404, body: { name: 'not_found' } });
  });

  it('a scheduled email is canceled, then deleted, and never sent; one still on its way is refused, naming the rule', async () => {
    const later = await sendText('later@example.test', 'Scheduled, then deleted', 'x', {
      scheduledAt: 'in 1 hour',
    });
    expect(await remove(later)).toMatchObject({ status: 200, body: { deleted: true } });
    await stack.settled([later]);
    expect(stack.sink.byMessageId(`<${later}@acme.test>`)).toEqual([]);
    expect((await stack.resend.emails.get(later)).error).toMatchObject({ statusCode: 404 });

    const address = `stalled@${HELD}`;
    const held = await sendText(address, 'On its way', 'x');
    // the worker is inside the SMTP transaction: the email is not sent yet
    await waitUntil(() => stack.sink.attemptsFor(address) > 0, {
      timeoutMs: 20_000,
      message: 'the held email to reach the sink',
    });
    const refused = await remove(held);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({
      name: 'validation_error',
      message: expect.stringMatching(
        /^Only emails that are scheduled or done sending \(sent, .*\) can be deleted; this email is (queued|delivery_delayed)/,
      ),
    });
    expect((await stack.resend.emails.get(held)).error).toBeNull();
  });

  it("another team's key gets 404 and deletes nothing", async () => {
    const id = await sendText('kept@example.test', 'Not yours', 'x');
    const { key: other } = await otherTeam(stack, 'deleter');
    expect(await remove(id, other)).toMatchObject({ status: 404, body: { name: 'not_found' } });
    expect(await remove('not-an-id')).toMatchObject({ status: 404, body: { name: 'not_found' } });
    expect((await stack.resend.emails.get(id)).error).toBeNull();
  });
});
