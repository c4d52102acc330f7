// The realistic sink's answer to a message, a pure function of the Message-ID and a seed, so the
// bench can recompute after the run what the sink decided for every email and check the email's
// terminal state against it. The mix follows the "smart sink" of MTA benchmarks: mostly 250, a
// few temporary failures (421 / 451: RFC 5321 section 4.2.1, "transient negative completion"),
// a few permanent ones (550 5.1.1, "bad destination mailbox address": RFC 3463 section 3.2) and a
// few slow answers. Only a message's first attempt is decided; every later attempt of the same
// Message-ID is answered 250 (a retried temporary failure then ends delivered, which is what the
// check expects).
import { createHash } from 'node:crypto';

export const REALISTIC_MIX = [
  { answer: 'temp421', share: 0.025 },
  { answer: 'temp451', share: 0.025 },
  { answer: 'perm550', share: 0.01 },
  { answer: 'slow', share: 0.01 },
];
/** The slow answer's pause before its 250. */
export const SLOW_MS = 2_000;

/** 'ok' | 'temp421' | 'temp451' | 'perm550' | 'slow' for the first attempt of `messageId`. */
export function sinkDecision(messageId, seed) {
  const h = createHash('sha256').update(`${seed}:${messageId}`).digest();
  const u = h.readUInt32BE(0) / 2 ** 32;
  let edge = 0;
  for (const { answer, share } of REALISTIC_MIX) {
    edge += share;
    if (u < edge) return answer;
  }
  return 'ok';
}
