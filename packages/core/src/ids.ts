/**
 * Email ids are UUIDv7: a 48-bit millisecond timestamp then random bits, so they sort by time.
 * With an Idempotency-Key the "random" bits come from a hash of (team, key, endpoint, index) and
 * the timestamp from the idempotency claim, so a retry after a crash recomputes the same ids.
 */
import { createHash, randomFillSync } from 'node:crypto';

function formatV7(ms: number, rest: Buffer): string {
  const b = Buffer.alloc(16);
  b.writeUIntBE(Math.max(0, Math.floor(ms)) % 2 ** 48, 0, 6);
  rest.copy(b, 6, 0, 10);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * Random bytes are drawn from a pool refilled 4 KB at a time (as the `uuid` package does): one
 * `randomBytes(10)` call per id was 6 % of the API's CPU at ingest (bench/README.md).
 */
const POOL = Buffer.alloc(4096);
let poolPos = POOL.length;

function random10(): Buffer {
  if (poolPos + 10 > POOL.length) {
    randomFillSync(POOL);
    poolPos = 0;
  }
  const out = POOL.subarray(poolPos, poolPos + 10);
  poolPos += 10;
  return out;
}

export function newEmailId(nowMs = Date.now()): string {
  return formatV7(nowMs, random10());
}

export function deterministicEmailId(
  teamId: string,
  idempotencyKey: string,
  endpoint: string,
  index: number,
  claimMs: number,
): string {
  const digest = createHash('sha256').update(`${teamId}\n${idempotencyKey}\n${endpoint}\n${index}`).digest();
  return formatV7(claimMs, digest);
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
