import { createHash, generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth';
import { describe, expect, it } from 'vitest';
import type { DkimSigningKey } from '@petrel/core';
import { buildMessage } from './build-message.js';
import { createDkimSigner, relaxedBodyHash, relaxedHeader } from './dkim-signer.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ed = generateKeyPairSync('ed25519');
const keys: DkimSigningKey[] = [
  {
    selector: 'petrel',
    algorithm: 'rsa-sha256',
    privateKeyPem: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  },
  {
    selector: 'petrel-ed25519',
    algorithm: 'ed25519-sha256',
    privateKeyPem: ed.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  },
];
const records: Record<string, string> = {
  'petrel._domainkey.example.test': `v=DKIM1; k=rsa; p=${rsa.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
  'petrel-ed25519._domainkey.example.test': `v=DKIM1; k=ed25519; p=${ed.publicKey
    .export({ type: 'spki', format: 'der' })
    .subarray(12)
    .toString('base64')}`,
};
const resolver = async (name: string) => {
  const value = records[name];
  if (!value) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return [[value]];
};

function message(extra: Record<string, string> = {}) {
  return buildMessage({
    emailId: '0190a000-0000-7000-8000-000000000001',
    messageIdDomain: 'example.test',
    date: new Date('2026-11-23T10:00:00Z'),
    from: 'Ada <ada@example.test>',
    to: ['bob@dest.test'],
    cc: ['carol@dest.test'],
    bcc: [],
    reply_to: [],
    subject: 'Über the line: a subject long enough to be folded by the builder, or maybe not at all',
    html: '<p>Hello  there</p>\n',
    text: 'Hello  there \n\n\n',
    headers: extra,
    attachments: [],
  }).raw;
}

const statuses = async (raw: Buffer) =>
  (await dkimVerify(raw, { resolver })).results.map((r) => `${r.signingDomain}:${r.status.result}`);

describe('createDkimSigner', () => {
  const signer = createDkimSigner();

  it('signs with RSA and Ed25519 keys that mailauth verifies, oversigning From, To and Subject', async () => {
    const signed = await signer.sign(message({ 'List-Unsubscribe': '<https://u.test/x>' }), {
      domain: 'example.test',
      keys,
    });
    expect(await statuses(signed)).toEqual(['example.test:pass', 'example.test:pass']);
    const head = signed.toString('latin1').split('\r\n\r\n')[0]!;
    const h = /[\s;]h=([^;]+);/.exec(head.replace(/\r\n\t/g, ''))![1]!.split(':');
    expect(h.filter((n) => n === 'From')).toHaveLength(2);
    expect(h.filter((n) => n === 'Subject')).toHaveLength(2);
    expect(h.filter((n) => n === 'To')).toHaveLength(2);
    expect(h).toContain('List-Unsubscribe');
    expect(head).toMatch(/a=rsa-sha256; c=relaxed\/relaxed; d=example\.test; s=petrel;/);
  });

  it('fails verification when a signed header is altered or a second From is added', async () => {
    const signed = (await signer.sign(message(), { domain: 'example.test', keys })).toString('latin1');
    const altered = signed.replace(/\r\nSubject: [^\r]*/, '\r\nSubject: Something else');
    expect(altered).not.toBe(signed);
    expect(await statuses(Buffer.from(altered, 'latin1'))).toEqual([
      'example.test:fail',
      'example.test:fail',
    ]);
    const [head, ...body] = signed.split('\r\n\r\n');
    const added = `${head}\r\nFrom: mallory@evil.test\r\n\r\n${body.join('\r\n\r\n')}`;
    expect(await statuses(Buffer.from(added, 'latin1'))).toEqual(['example.test:fail', 'example.test:fail']);
  });

  it("stamps t= with its clock's wall time in whole seconds (RFC 6376 section 3.5)", async () => {
    const clock = { now: () => Date.parse('2026-11-23T10:00:00.999Z') };
    const signed = await createDkimSigner({ clock }).sign(message(), { domain: 'example.test', keys });
    const head = signed.toString('latin1').split('\r\n\r\n')[0]!;
    expect([...head.matchAll(/[\s;]t=(\d+);/g)].map((m) => m[1])).toEqual(['1795428000', '1795428000']);
    expect(await statuses(signed)).toEqual(['example.test:pass', 'example.test:pass']);
  });

  it('passes through a message unchanged when there is no key', async () => {
    const raw = message();
    expect(await signer.sign(raw, { domain: 'example.test', keys: [] })).toBe(raw);
  });

  it('canonicalizes as RFC 6376 section 3.4.5 shows', () => {
    expect(relaxedHeader('A: X')).toBe('a:X');
    expect(relaxedHeader('B : Y\t\r\n\tZ  ')).toBe('b:Y Z');
    // " C \r\nD \t E\r\n\r\n\r\n" → " C\r\nD E\r\n"
    const expected = relaxedBodyHash(Buffer.from(' C\r\nD E\r\n'));
    expect(relaxedBodyHash(Buffer.from(' C \r\nD \t E\r\n\r\n\r\n'))).toBe(expected);
    // no whitespace to reduce (the fast path): only a final CRLF is added, trailing empty lines go
    const sha = (s: string) => createHash('sha256').update(s).digest('base64');
    expect(relaxedBodyHash(Buffer.from('a\r\nb'))).toBe(sha('a\r\nb\r\n'));
    expect(relaxedBodyHash(Buffer.from('a\r\nb\r\n\r\n'))).toBe(sha('a\r\nb\r\n'));
    // an empty body hashes as the empty string (section 3.4.4)
    expect(relaxedBodyHash(Buffer.alloc(0))).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
  });
});
