/**
 * DKIM signing (RFC 6376) of a built message: one DKIM-Signature per key of the from-domain,
 * RSA-SHA256 and, where configured, Ed25519-SHA256 (RFC 8463), each prepended to the message.
 *
 * - Canonicalization relaxed/relaxed (section 3.4.2 and 3.4.4): survives the whitespace and
 *   folding changes relays make.
 * - Signed headers: those of section 5.4.1's list that the message has, bottom-up instance
 *   order (section 5.4.2); From, To and Subject are listed once more than they occur
 *   ("oversigned", section 8.15), so a relay cannot add a second From or Subject that a mail
 *   client would show without breaking the signature.
 *
 * Why node:crypto and not mailauth's signer: mailauth 4.13 puts in `h=` only the header
 * instances present, so it cannot oversign; and it parses the message as a stream per
 * signature, where here the body hash is computed once for all keys. mailauth's verifier (an
 * independent implementation) checks these signatures in the tests.
 *
 * Private keys become KeyObjects once per key and process (lru-cache): a PEM parse per message
 * would cost more than the signature.
 */
import { createHash, createPrivateKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { DkimSigner, DkimSigningKey } from '@petrel/core';

/** RFC 6376 section 5.4.1: the header fields that SHOULD be signed, when present. */
export const DKIM_SIGNED_HEADERS = [
  'From',
  'Reply-To',
  'Subject',
  'Date',
  'To',
  'Cc',
  'Resent-Date',
  'Resent-From',
  'Resent-To',
  'Resent-Cc',
  'In-Reply-To',
  'References',
  'List-Id',
  'List-Help',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
  'List-Subscribe',
  'List-Post',
  'List-Owner',
  'List-Archive',
  'Message-ID',
  'MIME-Version',
  'Content-Type',
  'Content-Transfer-Encoding',
  'Feedback-ID',
] as const;

/** Listed once more than they occur (section 8.15): a second instance added later breaks the signature. */
export const DKIM_OVERSIGNED_HEADERS = ['From', 'To', 'Subject'] as const;

/** Parsed private keys kept per process: one entry per domain key. */
const KEY_CACHE_ENTRIES = 10_000;

const CRLF = '\r\n';

interface HeaderField {
  /** Lower-cased name. */
  name: string;
  /** The whole field as in the message, folded lines included, without the final CRLF. */
  raw: string;
}

/** Splits the message at the first empty line (RFC 5322 section 2.1). */
function splitMessage(raw: Buffer): { head: string; body: Buffer } {
  const at = raw.indexOf('\r\n\r\n');
  if (at < 0) return { head: raw.toString('latin1'), body: Buffer.alloc(0) };
  return { head: raw.subarray(0, at).toString('latin1'), body: raw.subarray(at + 4) };
}

function headerFields(head: string): HeaderField[] {
  const fields: HeaderField[] = [];
  for (const line of head.split(CRLF)) {
    const last = fields[fields.length - 1];
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      last.raw += CRLF + line;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    fields.push({ name: line.slice(0, colon).trim().toLowerCase(), raw: line });
  }
  return fields;
}

/** Relaxed header canonicalization (section 3.4.2), without the trailing CRLF. */
export function relaxedHeader(raw: string): string {
  const colon = raw.indexOf(':');
  const name = raw.slice(0, colon).trim().toLowerCase();
  const value = raw
    .slice(colon + 1)
    .replace(/\r\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim();
  return `${name}:${value}`;
}

/** Relaxed body canonicalization (section 3.4.4) and its SHA-256 (the `bh=` tag), in base64. */
export function relaxedBodyHash(body: Buffer): string {
  // Fast path: a body the builder wrote (base64 or quoted-printable lines) usually has no
  // whitespace to reduce; then only the empty lines at its end go.
  if (!body.includes('\t') && !body.includes('  ') && !body.includes(' \r\n') && body.at(-1) !== 0x20) {
    let end = body.length;
    while (end >= 2 && body[end - 2] === 0x0d && body[end - 1] === 0x0a) end -= 2;
    const hash = createHash('sha256').update(body.subarray(0, end));
    if (end > 0) hash.update(CRLF);
    return hash.digest('base64');
  }
  const lines = body.toString('latin1').split(CRLF);
  const out = lines.map((l) => l.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  const canonical = out.length === 0 ? '' : out.join(CRLF) + CRLF;
  return createHash('sha256').update(canonical, 'latin1').digest('base64');
}

/**
 * The `h=` list and the canonicalized fields it covers: each listed name takes the next instance
 * from the bottom (section 5.4.2); the oversigned names once more, covering no instance.
 */
function signedFields(fields: readonly HeaderField[]): { names: string[]; canonical: string[] } {
  const names: string[] = [];
  const canonical: string[] = [];
  const counts = new Map<string, number>();
  for (const f of fields) counts.set(f.name, (counts.get(f.name) ?? 0) + 1);
  for (const name of DKIM_SIGNED_HEADERS) {
    const lower = name.toLowerCase();
    const instances = fields.filter((f) => f.name === lower).reverse();
    for (const f of instances) {
      names.push(name);
      canonical.push(relaxedHeader(f.raw));
    }
  }
  for (const name of DKIM_OVERSIGNED_HEADERS) names.push(name);
  return { names, canonical };
}

/** `h=` folded to stay under 78 characters a line (RFC 5322 section 2.1.1); relaxed unfolds it. */
function foldedList(names: readonly string[]): string {
  const lines: string[] = [];
  let line = '';
  for (const n of names) {
    const next = line === '' ? n : `${line}:${n}`;
    if (next.length > 60 && line !== '') {
      lines.push(`${line}:`);
      line = n;
    } else line = next;
  }
  lines.push(line);
  return lines.join(`${CRLF}\t`);
}

/** base64 folded into 64-character pieces (whitespace inside `b=` is ignored, section 3.5). */
const foldedBase64 = (b64: string): string => (b64.match(/.{1,64}/g) ?? ['']).join(`${CRLF}\t`);

export interface DkimSignerOptions {
  /** Wall time (epoch ms) for the `t=` tag, in seconds (RFC 6376 section 3.5); default `Date`. */
  clock?: { now(): number };
}

export function createDkimSigner(opts: DkimSignerOptions = {}): DkimSigner & { signSync: SignSync } {
  const keys = new LRUCache<string, KeyObject>({ max: KEY_CACHE_ENTRIES });
  const keyObject = (key: DkimSigningKey): KeyObject => {
    let k = keys.get(key.privateKeyPem);
    if (!k) {
      k = createPrivateKey(key.privateKeyPem);
      keys.set(key.privateKeyPem, k);
    }
    return k;
  };
  const clock = opts.clock ?? Date;

  const signSync: SignSync = (raw, signing) => {
    if (signing.keys.length === 0) return raw;
    const { head, body } = splitMessage(raw);
    const fields = headerFields(head);
    const { names, canonical } = signedFields(fields);
    const bh = relaxedBodyHash(body);
    const t = Math.floor(clock.now() / 1000);
    const signatures: string[] = [];
    for (const key of signing.keys) {
      const tags =
        `v=1; a=${key.algorithm}; c=relaxed/relaxed; d=${signing.domain}; s=${key.selector};${CRLF}` +
        `\tt=${t}; bh=${bh};${CRLF}\th=${foldedList(names)};${CRLF}\tb=`;
      const unsigned = `DKIM-Signature: ${tags}`;
      const data = Buffer.from([...canonical, relaxedHeader(unsigned)].join(CRLF), 'latin1');
      // RFC 8463 section 3: Ed25519 signs the SHA-256 hash of the data (PureEdDSA over the hash)
      const b =
        key.algorithm === 'ed25519-sha256'
          ? cryptoSign(null, createHash('sha256').update(data).digest(), keyObject(key))
          : cryptoSign('sha256', data, keyObject(key));
      signatures.push(`${unsigned}${foldedBase64(b.toString('base64'))}${CRLF}`);
    }
    return Buffer.concat([Buffer.from(signatures.join(''), 'latin1'), raw]);
  };

  return {
    signSync,
    async sign(raw, signing) {
      return signSync(raw, signing);
    },
  };
}

export type SignSync = (raw: Buffer, signing: { domain: string; keys: readonly DkimSigningKey[] }) => Buffer;
