/**
 * Every id Petrel makes, from one module. Where the specification leaves the format open, an id
 * is a UUIDv7 (RFC 9562 §5.7): a 48-bit millisecond timestamp then random bits, so ids sort by
 * creation time and index well. Emails, templates and their versions, events, API keys, teams,
 * request ids and idempotency claim owners all use {@link newId}.
 *
 * One id is derived instead of drawn: with an Idempotency-Key an email's id is
 * {@link deterministicEmailId}, so a retry after a crash recomputes the same ids.
 */
import { createHash, randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/**
 * Random bytes are drawn from a pool refilled 4 KB at a time: one CSPRNG call per id was 6 % of
 * the API's CPU at ingest (bench/README.md).
 */
const POOL = Buffer.alloc(4096);
let poolPos = POOL.length;

function random16(): Uint8Array {
  if (poolPos + 16 > POOL.length) {
    randomFillSync(POOL);
    poolPos = 0;
  }
  const out = POOL.subarray(poolPos, poolPos + 16);
  poolPos += 16;
  return out;
}

/** A new UUIDv7 for `nowMs` (default: now). */
export function newId(nowMs = Date.now()): string {
  return uuidv7({ msecs: Math.max(0, Math.floor(nowMs)), random: random16() });
}

/** An email's id: a {@link newId} (fixed at acceptance; it is also the job id and in the Message-ID). */
export function newEmailId(nowMs?: number): string {
  return newId(nowMs);
}

/**
 * The id of email `index` of a request sent with an Idempotency-Key: UUIDv7-shaped, its
 * timestamp the claim's start and its other bits a SHA-256 of (team, key, endpoint, index), so
 * the same request computes the same ids however often it is retried. The derivation must never
 * change: a retry in flight across an upgrade would otherwise get new ids (a second email).
 */
export function deterministicEmailId(
  teamId: string,
  idempotencyKey: string,
  endpoint: string,
  index: number,
  claimMs: number,
): string {
  const digest = createHash('sha256').update(`${teamId}\n${idempotencyKey}\n${endpoint}\n${index}`).digest();
  const b = Buffer.alloc(16);
  b.writeUIntBE(Math.max(0, Math.floor(claimMs)) % 2 ** 48, 0, 6);
  digest.copy(b, 6, 0, 10);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * An id as it is stored and looked up: lower case. Ids are UUIDs, which RFC 9562 (section 4)
 * reads case-insensitively and writes in lower case; a client may send either.
 */
export function idKey(id: string): string {
  return id.toLowerCase();
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IdSource {
  /** A fresh event id (UUIDv7, so timelines sort by time). */
  newEventId(): string;
}
