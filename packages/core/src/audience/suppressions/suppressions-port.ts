/**
 * The port of the suppression use-cases: the sending pipeline's {@link SuppressionsWriter} plus
 * the API's reads and removals. SuppressionsStore satisfies it (and publishes suppression.*
 * events in the script of each write); packages/testing has an in-memory version.
 *
 * An entry is one mailbox (`mailboxKey`): adding an address whose mailbox is listed already
 * returns the existing entry. `idOrEmail` is an address when it holds an `@`, else an id.
 */
import type { SuppressionOrigin, SuppressionRecord } from '@petrel/contracts';
import type { SuppressionsWriter } from '../ports.js';
import type { Page, PageRequest } from '../../kernel/page.js';

/** Which entries a batch removal names. */
export type SuppressionRefs = { emails: readonly string[] } | { ids: readonly string[] };

export interface SuppressionsPort extends SuppressionsWriter {
  /** {@link SuppressionsWriter.add} for many addresses at once (same order as `emails`). */
  addMany(
    teamId: string,
    emails: readonly string[],
    origin: SuppressionOrigin,
    sourceId: string | null,
  ): Promise<{ id: string; created: boolean }[]>;
  get(teamId: string, idOrEmail: string): Promise<SuppressionRecord | null>;
  /** The removed entry, or null when there is none. */
  remove(teamId: string, idOrEmail: string): Promise<SuppressionRecord | null>;
  /**
   * Removes each named entry (same order as the refs). `id` is the entry's id, or the given
   * address when no entry has it (`deleted: false`).
   */
  removeMany(teamId: string, refs: SuppressionRefs): Promise<{ id: string; deleted: boolean }[]>;
  /** Newest first, optionally of one origin; null when the cursor names no (such) entry. */
  list(
    teamId: string,
    page: PageRequest,
    origin?: SuppressionOrigin,
  ): Promise<Page<SuppressionRecord> | null>;
}

/** The `data` of suppression.added / suppression.removed (Resend's webhook payload). */
export function suppressionEventData(s: SuppressionRecord): Record<string, unknown> {
  return { id: s.id, email: s.email, origin: s.origin, source_id: s.source_id, created_at: s.created_at };
}
