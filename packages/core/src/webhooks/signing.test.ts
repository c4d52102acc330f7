import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Resend } from 'resend';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { newSigningSecret, signatureHeaders, signingSecrets, webhookMessageId } from './signing.js';

const resend = new Resend('re_test_signing');

/** Verifies with the three reference verifiers; throws what the first one that refuses throws. */
function verifyAll(body: string, headers: Record<string, string>, secret: string): void {
  resend.webhooks.verify({
    payload: body,
    headers: {
      id: headers['svix-id']!,
      timestamp: headers['svix-timestamp']!,
      signature: headers['svix-signature']!,
    },
    webhookSecret: secret,
  });
  new StandardWebhook(secret).verify(body, {
    'webhook-id': headers['webhook-id']!,
    'webhook-timestamp': headers['webhook-timestamp']!,
    'webhook-signature': headers['webhook-signature']!,
  });
  new SvixWebhook(secret).verify(body, {
    'svix-id': headers['svix-id']!,
    'svix-timestamp': headers['svix-timestamp']!,
    'svix-signature': headers['svix-signature']!,
  });
}

const nowS = () => Math.floor(Date.now() / 1000);

describe('webhook signing', () => {
  it('secrets are whsec_ + base64 of 24 bytes; message ids derive from the event id', () => {
    const s = newSigningSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(24);
    expect(webhookMessageId('0190a0b0-0000-7000-8000-000000000001')).toBe(
      'msg_0190a0b0000070008000000000000001',
    );
  });

  it('resend.webhooks.verify, standardwebhooks and svix all verify a delivery', () => {
    const secret = newSigningSecret();
    const body = JSON.stringify({
      type: 'email.sent',
      created_at: new Date().toISOString(),
      data: { a: 'é😀' },
    });
    const headers = signatureHeaders([secret], 'msg_1', nowS(), body);
    expect(() => verifyAll(body, headers, secret)).not.toThrow();
    expect(headers['svix-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('during a rotation both signatures are sent and each secret verifies alone', () => {
    const [oldS, newS] = [newSigningSecret(), newSigningSecret()];
    const endpoint = { secret: newS, previous_secret: oldS, previous_secret_expires_ms: 2_000 };
    expect(signingSecrets(endpoint, 1_999)).toEqual([newS, oldS]);
    expect(signingSecrets(endpoint, 2_000)).toEqual([newS]);
    const body = '{"type":"contact.created"}';
    const headers = signatureHeaders(signingSecrets(endpoint, 0), 'msg_2', nowS(), body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => verifyAll(body, headers, oldS)).not.toThrow();
    expect(() => verifyAll(body, headers, newS)).not.toThrow();
    expect(() => verifyAll(body, headers, newSigningSecret())).toThrow();
  });

  it('R16: 2,000 random payloads verify during a rotation; a flipped byte, a stale timestamp or a wrong secret never do', () => {
    const [oldS, newS] = [newSigningSecret(), newSigningSecret()];
    // Bodies are JSON envelopes (the verifiers parse what they verified) around any text.
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 20_000 }),
      fc.constantFrom('', '\u2028\u2029', '😀'.repeat(5_000), '\u0000'),
    );
    const payload = fc.tuple(text, fc.jsonValue({ maxDepth: 3 })).map(([subject, extra]) =>
      JSON.stringify({
        type: 'email.sent',
        created_at: '2026-01-01T00:00:00.000Z',
        data: { subject, extra },
      }),
    );
    fc.assert(
      fc.property(payload, fc.nat(), (body, n) => {
        const msgId = `msg_${n}`;
        const headers = signatureHeaders([newS, oldS], msgId, nowS(), body);
        verifyAll(body, headers, newS);
        verifyAll(body, headers, oldS);
        const [sigNew, sigOld] = headers['svix-signature']!.split(' ');
        verifyAll(body, { ...headers, 'svix-signature': sigNew!, 'webhook-signature': sigNew! }, newS);
        verifyAll(body, { ...headers, 'svix-signature': sigOld!, 'webhook-signature': sigOld! }, oldS);
        const bytes = Buffer.from(body, 'utf8');
        if (bytes.length > 0) {
          bytes[n % bytes.length]! ^= 1;
          const flipped = bytes.toString('utf8');
          if (flipped !== body) expect(() => verifyAll(flipped, headers, newS)).toThrow();
        }
        const stale = signatureHeaders([newS], msgId, nowS() - 301, body);
        expect(() => verifyAll(body, stale, newS)).toThrow();
        expect(() => verifyAll(body, headers, newSigningSecret())).toThrow();
      }),
      { numRuns: 2_000 },
    );
  }, 120_000);
});
