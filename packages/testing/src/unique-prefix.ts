import { randomBytes } from 'node:crypto';

let counter = 0;

/**
 * A short prefix that no other test (in this or a parallel process) uses, for Redis key
 * prefixes and queue-name suffixes: `t-<name>-<random><counter>`, e.g. `t-deliver-k3x9a0`.
 * Only `[a-z0-9-]` appear, so it is safe in BullMQ queue names (which must not hold `:`).
 */
export function uniquePrefix(name = 'test'): string {
  const slug =
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 16) || 'test';
  counter += 1;
  const random = (randomBytes(4).readUInt32BE(0) % 36 ** 5).toString(36).padStart(5, '0');
  return `t-${slug}-${random}${counter.toString(36)}`;
}
