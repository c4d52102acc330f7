/**
 * How values are shown: dates in the reader's locale, the tone of a status badge, a contact
 * import's progress. Pure (no DOM); tested in format.test.ts.
 */

/** A timestamp as the reader's local date and time; the raw value when it does not parse. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}

/** `ok` | `bad` | `warn` | `neutral`: how a status word is shown. */
export function statusTone(status: string | null | undefined): 'ok' | 'bad' | 'warn' | 'neutral' {
  switch (status) {
    case 'delivered':
    case 'sent':
    case 'verified':
    case 'published':
    case 'completed':
    case 'enabled':
    case 'opened':
    case 'clicked':
    case 'succeeded':
    case 'success':
      return 'ok';
    case 'bounced':
    case 'failed':
    case 'complained':
    case 'canceled':
    case 'suppressed':
    case 'disabled':
    case 'partially_failed':
    case 'temporary_failure':
      return 'bad';
    case 'scheduled':
    case 'queued':
    case 'in_progress':
    case 'pending':
    case 'delivery_delayed':
    case 'partially_verified':
    case 'not_started':
    case 'retrying':
      return 'warn';
    default:
      return 'neutral';
  }
}

export interface ImportCounts {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

/** Rows handled so far and the share of the total (0–100), for a contact import's progress bar. */
export function importProgress(
  counts: ImportCounts | null | undefined,
  status: string,
): {
  done: number;
  total: number;
  percent: number;
} {
  const total = counts?.total ?? 0;
  const done = counts ? counts.created + counts.updated + counts.skipped + counts.failed : 0;
  if (status === 'completed') return { done, total: Math.max(total, done), percent: 100 };
  if (total <= 0) return { done, total, percent: 0 };
  return { done, total, percent: Math.min(100, Math.round((done / total) * 100)) };
}
