/**
 * How a message finds its thread in an inbox. Pure rules; the store answers the two lookups.
 *
 * 1. **References first** (RFC 5322 section 3.6.4): `In-Reply-To` names the parent, `References`
 *    the chain from the root to the parent. The message joins the thread of the nearest
 *    ancestor the inbox knows: In-Reply-To's ids, then References from its last id (the parent)
 *    back to its first (the root). A message that refers to messages of two threads (a reply to
 *    two conversations at once) therefore joins the thread of its parent and merges nothing:
 *    merging would move messages under a client that already shows them apart.
 * 2. **Subject fallback**, only for a message that looks like a reply — a reply/forward prefix on
 *    its subject, or an In-Reply-To/References none of whose ids the inbox knows (clients that
 *    drop the headers, a reply to a message that never reached the inbox): the newest thread of
 *    the same normalised subject with the same correspondent (the sender of an inbound message;
 *    an outbound one is always threaded by its references) whose last message is at most
 *    {@link SUBJECT_WINDOW_MS} old. Two fresh messages "Hello" from one person stay apart; a
 *    "Re: Hello" from someone else never lands in their thread.
 * 3. Otherwise a new thread.
 *
 * A duplicated Message-ID (a message delivered twice, or a client that reuses ids) joins the
 * thread that id already points to; the id keeps pointing at the thread it named first.
 */
import { mailboxKey } from '../kernel/mailbox.js';

/** How old a thread's last message may be for a prefix-only reply to join it (30 days). */
export const SUBJECT_WINDOW_MS = 30 * 86_400_000;

/**
 * Reply and forward prefixes, as mail clients write them (RFC 5322 section 3.6.5 names only
 * "Re: "; the others are the localized forms common clients use): English Re/Fw/Fwd, German
 * AW/WG, Scandinavian SV/VS/VB/VL, Dutch Antw/Doorst, French Réf/TR, Italian RIF/I, Spanish
 * RV, Polish Odp/PD, Finnish VS/VL, Turkish YNT/İLT, Chinese 回复/答复/转发, Japanese 返信/転送.
 * A prefix may carry a counter (`Re[2]:`, `Re(2):`) and a full-width colon.
 */
const PREFIX =
  /^\s*(?:re|fwd?|aw|wg|sv|vs|vb|vl|antw|doorst|réf|ref|tr|rif|rv|odp|pd|ynt|i̇lt|ilt|回复|答复|转发|返信|転送)\s*(?:\[\d+\]|\(\d+\))?\s*[:：]\s*/iu;

/** The subject without its reply/forward prefixes (any number, any mix), and whether it had one. */
export function stripSubjectPrefixes(subject: string): { base: string; prefixed: boolean } {
  let s = subject;
  let prefixed = false;
  for (;;) {
    const m = PREFIX.exec(s);
    if (!m) break;
    s = s.slice(m[0].length);
    prefixed = true;
  }
  return { base: s.trim(), prefixed };
}

/** The subject as threads compare it: no prefixes, case folded, runs of white space as one. */
export function normaliseSubject(subject: string | null | undefined): string {
  return stripSubjectPrefixes(subject ?? '')
    .base.normalize('NFC')
    .toLowerCase()
    .replace(/\s+/g, ' ');
}

/** The key of the subject fallback: normalised subject and correspondent. */
export function subjectKey(subject: string | null | undefined, correspondent: string): string {
  return `${mailboxKey(correspondent)}\n${normaliseSubject(subject)}`;
}

/**
 * The msg-ids of an In-Reply-To or References field (RFC 5322 section 3.6.4: `<id-left@id-right>`
 * separated by white space or comments), in order, each once. Ids are compared as written but
 * for the brackets (RFC 5322 treats them as opaque), and anything that is no msg-id is skipped.
 */
export function messageIdList(field: string | null | undefined): string[] {
  if (!field) return [];
  const out: string[] = [];
  for (const m of field.matchAll(/<([^<>\s]+)>/g)) {
    const id = m[1]!;
    if (id.includes('@') && !out.includes(id)) out.push(id);
  }
  return out;
}

/** A Message-ID field's id, without brackets; null when it has none. */
export function ownMessageId(field: string | null | undefined): string | null {
  return messageIdList(field)[0] ?? (field && /^[^<>\s]+@[^<>\s]+$/.test(field.trim()) ? field.trim() : null);
}

export interface ThreadingInput {
  /** The message's own id, bare (null: it has none). */
  messageId: string | null;
  inReplyTo: string[];
  references: string[];
  subject: string | null;
  /** The sender of an inbound message; null for an outbound one (no subject fallback). */
  correspondent: string | null;
  receivedMs: number;
}

/** What the inbox already knows, asked once per message. */
export interface ThreadLookups {
  /** The thread of each id (same order), null for an unknown id. */
  threadsOf(messageIds: readonly string[]): Promise<(string | null)[]>;
  /** The newest thread under a subject key and its last message's time, or null. */
  threadOfSubject(key: string): Promise<{ threadId: string; lastMs: number } | null>;
}

export type ThreadDecision =
  { kind: 'existing'; threadId: string; by: 'message-id' | 'references' | 'subject' } | { kind: 'new' };

/** The ids to look up, nearest ancestor first (see the header). */
export function ancestorsNearestFirst(input: Pick<ThreadingInput, 'inReplyTo' | 'references'>): string[] {
  const out: string[] = [];
  for (const id of [...input.inReplyTo, ...[...input.references].reverse()]) {
    if (!out.includes(id)) out.push(id);
  }
  return out;
}

/** Whether the message claims to answer another one (the subject fallback applies only then). */
export function looksLikeReply(input: ThreadingInput): boolean {
  return (
    input.inReplyTo.length > 0 ||
    input.references.length > 0 ||
    stripSubjectPrefixes(input.subject ?? '').prefixed
  );
}

export async function chooseThread(input: ThreadingInput, lookups: ThreadLookups): Promise<ThreadDecision> {
  const ancestors = ancestorsNearestFirst(input);
  const asked = input.messageId !== null ? [input.messageId, ...ancestors] : ancestors;
  if (asked.length > 0) {
    const found = await lookups.threadsOf(asked);
    if (input.messageId !== null && found[0]) {
      return { kind: 'existing', threadId: found[0], by: 'message-id' };
    }
    const offset = input.messageId !== null ? 1 : 0;
    for (let i = offset; i < found.length; i++) {
      if (found[i]) return { kind: 'existing', threadId: found[i]!, by: 'references' };
    }
  }
  if (input.correspondent !== null && looksLikeReply(input) && normaliseSubject(input.subject) !== '') {
    const hit = await lookups.threadOfSubject(subjectKey(input.subject, input.correspondent));
    if (hit && input.receivedMs - hit.lastMs <= SUBJECT_WINDOW_MS) {
      return { kind: 'existing', threadId: hit.threadId, by: 'subject' };
    }
  }
  return { kind: 'new' };
}
