import { describe, expect, it } from 'vitest';
import { ATTACHMENT_CONTENT_KEPT, REDACTED, isSecretField, redactLogBody } from './redact.js';

const API_KEY = 're_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('redactLogBody', () => {
  it('replaces credentials by field name, in any case style and at any depth', () => {
    const out = redactLogBody(
      {
        id: 'k1',
        token: API_KEY,
        nested: { signingSecret: 'abc', list: [{ password: 'hunter2' }], api_key: 'x', csrf_token: 't' },
        name: 'kept',
      },
      10_000,
    );
    expect(out).toEqual({
      id: 'k1',
      token: REDACTED,
      nested: {
        signingSecret: REDACTED,
        list: [{ password: REDACTED }],
        api_key: REDACTED,
        csrf_token: REDACTED,
      },
      name: 'kept',
    });
    for (const f of ['signing_secret', 'download_url', 'session_token', 'smtpPassword', 'client_secret'])
      expect(isSecretField(f), f).toBe(true);
    for (const f of ['subject', 'to', 'name', 'endpoint']) expect(isSecretField(f), f).toBe(false);
  });

  it('replaces API keys, signing secrets and signed-link tokens inside any string', () => {
    const out = redactLogBody(
      {
        text: `my key is ${API_KEY} and the secret ${SECRET}`,
        html: '<a href="https://p.example/unsubscribe/eyJhbGciOi.abcdefgh12345">x</a>',
        raw: 'https://p.example/emails/receiving/downloads/AAAABBBBCCCCDDDD',
      },
      10_000,
    ) as Record<string, string>;
    const all = JSON.stringify(out);
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('eyJhbGciOi.abcdefgh12345');
    expect(all).not.toContain('AAAABBBBCCCCDDDD');
    expect(out.html).toBe(`<a href="https://p.example/unsubscribe/${REDACTED}">x</a>`);
    expect(out.text).toBe(`my key is re_${REDACTED} and the secret whsec_${REDACTED}`);
  });

  it("keeps only the head of an attachment's content, in a single email and in a batch", () => {
    const content = 'A'.repeat(100_000);
    const email = { to: 'a@b.test', attachments: [{ filename: 'a.pdf', content }] };
    for (const body of [email, [email, email]]) {
      const out = JSON.stringify(redactLogBody(body, 1_000_000));
      expect(out.length).toBeLessThan(1_000);
      expect(out).toContain(`${'A'.repeat(ATTACHMENT_CONTENT_KEPT)}…(truncated, 100000 characters)`);
      expect(out).toContain('a.pdf');
    }
  });

  it('bounds the JSON to about maxBytes, saying what was left out', () => {
    const batch = Array.from({ length: 100 }, (_, i) => ({ to: `u${i}@x.test`, html: 'x'.repeat(1000) }));
    const out = redactLogBody(batch, 4096) as unknown[];
    const json = JSON.stringify(out);
    expect(json.length).toBeLessThan(4096 + 200);
    expect(out.at(-1)).toMatch(/^…\(\d+ more items\)$/);
    const long = redactLogBody({ html: 'y'.repeat(10_000) }, 500) as { html: string };
    expect(long.html).toMatch(/…\(truncated, 10000 characters\)$/);
    expect(JSON.stringify(long).length).toBeLessThan(600);
  });

  it('turns no body into null and keeps plain values', () => {
    expect(redactLogBody(undefined, 100)).toBeNull();
    expect(redactLogBody({ a: 1, b: true, c: null, d: 'x' }, 100)).toEqual({
      a: 1,
      b: true,
      c: null,
      d: 'x',
    });
    expect(redactLogBody({ token: '' }, 100)).toEqual({ token: '' });
  });
});

describe('redactLogBody on long strings', () => {
  it('finds a secret the cut falls into, and scrubs only what it keeps', () => {
    const key = 're_AbCdEfGhIjKlMnOpQrStUvWxYz012345';
    const out = redactLogBody({ html: `${'x'.repeat(80)}${key}${'y'.repeat(1_000_000)}` }, 100) as {
      html: string;
    };
    expect(out.html).not.toContain(key.slice(0, 8));
    expect(out.html).toContain('re_[redact');
    expect(out.html).toMatch(/…\(truncated, 1000115 characters\)$/);
    expect(out.html.length).toBeLessThan(200);
  });
});
