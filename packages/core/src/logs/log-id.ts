/**
 * A request log's public id is a UUID (Resend's `Log.id` is `format: uuid`) that names its entry
 * in the team's log stream without an index: the entry's stream id (`<ms>-<seq>`, given by Redis
 * when it is appended) and a random tag stored in the entry, laid out as a UUIDv7 (RFC 9562
 * section 5.7: the 48-bit millisecond timestamp first, so ids sort by time, then version 7;
 * section 6.2 allows counter bits, here the stream sequence, in the random fields):
 *
 *   unix_ts_ms (48) | ver 7 (4) | tag high (12) | var 0b10 (2) | seq (30) | tag low (32)
 *
 * The 44-bit tag makes an id unguessable from its neighbours and tells a look-up that the entry
 * found at that position of this team's stream is the one named (another team's id → 404).
 */
import { idKey } from '../kernel/ids.js';

/** Hex digits of a tag: 44 bits. */
export const LOG_TAG_HEX = 11;
const MAX_SEQ = 2 ** 30;
const STREAM_ID = /^(\d{1,15})-(\d{1,10})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A fresh tag (11 lower-case hex digits) from 6 random bytes. */
export function logTagFrom(random: Uint8Array): string {
  let hex = '';
  for (let i = 0; i < 6; i++) hex += random[i]!.toString(16).padStart(2, '0');
  return hex.slice(0, LOG_TAG_HEX);
}

/** The id of the entry `streamId` (`<ms>-<seq>`) tagged `tag`; throws for what cannot be encoded. */
export function encodeLogId(streamId: string, tag: string): string {
  const m = STREAM_ID.exec(streamId);
  if (!m || !/^[0-9a-f]{11}$/.test(tag)) throw new Error(`cannot encode log ${streamId}/${tag}`);
  const ms = BigInt(m[1]!);
  const seq = BigInt(m[2]!);
  if (ms >= 2n ** 48n || seq >= BigInt(MAX_SEQ)) throw new Error(`log ${streamId} is out of range`);
  const high = (ms << 16n) | (0x7n << 12n) | BigInt(`0x${tag.slice(0, 3)}`);
  const low = (0b10n << 62n) | (seq << 32n) | BigInt(`0x${tag.slice(3)}`);
  const h = high.toString(16).padStart(16, '0') + low.toString(16).padStart(16, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The stream id and tag an id names, or null when it is no log id. */
export function decodeLogId(id: string): { streamId: string; tag: string } | null {
  const lower = idKey(id);
  if (!UUID.test(lower)) return null;
  const h = lower.replace(/-/g, '');
  const high = BigInt(`0x${h.slice(0, 16)}`);
  const low = BigInt(`0x${h.slice(16)}`);
  const ms = high >> 16n;
  const tagHigh = (high & 0xfffn).toString(16).padStart(3, '0');
  const seq = (low >> 32n) & BigInt(MAX_SEQ - 1);
  const tagLow = (low & 0xffffffffn).toString(16).padStart(8, '0');
  return { streamId: `${ms}-${seq}`, tag: tagHigh + tagLow };
}
