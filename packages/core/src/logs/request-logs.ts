/**
 * The team's API request log (Resend's `logs.list` / `logs.get`): every authenticated API request
 * with its endpoint, method, status, user agent, time and bodies (redacted: redact.ts), kept
 * `retentionMs` and at most about `maxEntries` per team, newest first.
 */
import { PetrelError } from '@petrel/contracts';
import type { Clock } from '../kernel/clock.js';
import type { Page, PageRequest } from '../kernel/page.js';
import { decodeLogId } from './log-id.js';

/** A log as listed (Resend's `Log` without its bodies). */
export interface RequestLogSummary {
  id: string;
  created_at: string;
  endpoint: string;
  method: string;
  response_status: number;
  user_agent: string | null;
}

export interface RequestLog extends RequestLogSummary {
  request_body: unknown;
  response_body: unknown;
}

/** How long and how much a team's log keeps (REQUEST_LOG_RETENTION_DAYS, _MAX_ENTRIES, _BODY_MAX_BYTES). */
export interface RequestLogPolicy {
  retentionMs: number;
  maxEntries: number;
  bodyMaxBytes: number;
}

/** The oldest instant still shown at `nowMs`: an older entry is past its retention. */
export function requestLogCutoffMs(nowMs: number, policy: Pick<RequestLogPolicy, 'retentionMs'>): number {
  return Math.max(0, nowMs - policy.retentionMs);
}

/**
 * Petrel's filters of `GET /logs` (the SDK's `logs.list` sends only the cursor and `limit`):
 * `method` (GET, POST…), `status` (a code like `422`, or a class like `4xx`), `endpoint` (a path
 * prefix such as `/emails`; `/emails` also matches `/emails/batch`, never `/emailsx`).
 */
export interface RequestLogFilter {
  method?: string;
  status?: { code: number } | { class: number };
  endpoint?: string;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The filters of a query string; a bad one → 422 naming the parameter and the rule. */
export function parseRequestLogFilter(query: Record<string, unknown>): RequestLogFilter {
  const one = (name: string): string | undefined => {
    const v = query[name];
    if (v === undefined) return undefined;
    if (typeof v !== 'string' || v === '')
      throw new PetrelError('validation_error', `${name}: must be given once, as a non-empty string`);
    return v;
  };
  const filter: RequestLogFilter = {};
  const method = one('method');
  if (method !== undefined) {
    if (!METHODS.has(method.toUpperCase()))
      throw new PetrelError('validation_error', `method: must be one of ${[...METHODS].join(', ')}`);
    filter.method = method.toUpperCase();
  }
  const status = one('status');
  if (status !== undefined) {
    const code = /^[1-5]\d\d$/.exec(status);
    const cls = /^([1-5])xx$/i.exec(status);
    if (code) filter.status = { code: Number(status) };
    else if (cls) filter.status = { class: Number(cls[1]) };
    else
      throw new PetrelError(
        'validation_error',
        'status: must be an HTTP status code (100-599) or a class such as 4xx',
      );
  }
  const endpoint = one('endpoint');
  if (endpoint !== undefined) {
    if (!endpoint.startsWith('/') || endpoint.length > 200)
      throw new PetrelError(
        'validation_error',
        'endpoint: must be a path starting with / (at most 200 characters)',
      );
    filter.endpoint = endpoint.length > 1 ? endpoint.replace(/\/+$/, '') : endpoint;
  }
  return filter;
}

export function isFiltered(filter: RequestLogFilter): boolean {
  return filter.method !== undefined || filter.status !== undefined || filter.endpoint !== undefined;
}

/** Whether a logged request passes the filters. */
export function matchesRequestLogFilter(log: RequestLogSummary, filter: RequestLogFilter): boolean {
  if (filter.method !== undefined && log.method !== filter.method) return false;
  if (filter.status !== undefined) {
    if ('code' in filter.status) {
      if (log.response_status !== filter.status.code) return false;
    } else if (Math.floor(log.response_status / 100) !== filter.status.class) return false;
  }
  if (filter.endpoint !== undefined && filter.endpoint !== '/') {
    const e = filter.endpoint;
    if (log.endpoint !== e && !log.endpoint.startsWith(`${e}/`)) return false;
  }
  return true;
}

/** The store's side: pages and look-ups over a team's log, entries older than `cutoffMs` left out. */
export interface RequestLogReader {
  page(
    teamId: string,
    page: PageRequest,
    filter: RequestLogFilter,
    cutoffMs: number,
  ): Promise<Page<RequestLogSummary>>;
  get(teamId: string, id: string, cutoffMs: number): Promise<RequestLog | null>;
}

export interface RequestLogDeps {
  reader: RequestLogReader;
  policy: Pick<RequestLogPolicy, 'retentionMs'>;
  clock: Pick<Clock, 'now'>;
}

/** A cursor must be a log id: a malformed one is the client's mistake (422 naming it). */
function checkCursor(page: PageRequest): void {
  for (const name of ['after', 'before'] as const) {
    const v = page[name];
    if (v !== undefined && !decodeLogId(v))
      throw new PetrelError('validation_error', `${name}: must be the id of a log`);
  }
}

export async function listRequestLogs(
  deps: RequestLogDeps,
  teamId: string,
  page: PageRequest,
  filter: RequestLogFilter,
): Promise<Page<RequestLogSummary>> {
  checkCursor(page);
  return deps.reader.page(teamId, page, filter, requestLogCutoffMs(deps.clock.now(), deps.policy));
}

export async function getRequestLog(deps: RequestLogDeps, teamId: string, id: string): Promise<RequestLog> {
  const found = decodeLogId(id)
    ? await deps.reader.get(teamId, id, requestLogCutoffMs(deps.clock.now(), deps.policy))
    : null;
  if (!found) throw new PetrelError('not_found', 'Log not found');
  return found;
}
