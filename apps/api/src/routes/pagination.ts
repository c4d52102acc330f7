import type { Request, RequestHandler } from 'express';
import { teamOf } from './route-table.js';
import { LIMITS, PetrelError } from '@petrel/contracts';

/**
 * Resend's older list endpoints (contacts, segments) return everything when `limit` is
 * omitted; Petrel returns at most this many then (`has_more` tells when there are more, and
 * `after` pages on), so one request never reads an unbounded list.
 */
export const UNPAGED_LIST_MAX = 10_000;

/** A query value given at most once, as a string (`?a=1&a=2` and `?a[x]=1` are 422). */
export function queryParam(req: Request, name: string): string | undefined {
  const v = (req.query as Record<string, unknown>)[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string')
    throw new PetrelError('validation_error', `${name}: must be given once, as a string`);
  return v;
}

export interface PageQuery {
  limit: number;
  after?: string;
  before?: string;
}

/** Parse `limit`, `after`, `before` (Resend's cursor pagination): limit 1–100, one cursor; else 422. */
export function parsePageQuery(req: Request, defaultLimit: number = LIMITS.paginationDefault): PageQuery {
  const limitRaw = queryParam(req, 'limit');
  const after = queryParam(req, 'after');
  const before = queryParam(req, 'before');
  let limit = defaultLimit;
  if (limitRaw !== undefined) {
    if (!/^\d+$/.test(limitRaw) || Number(limitRaw) < 1 || Number(limitRaw) > LIMITS.paginationMax) {
      throw new PetrelError(
        'validation_error',
        `limit: must be an integer between 1 and ${LIMITS.paginationMax}`,
      );
    }
    limit = Number(limitRaw);
  }
  if (after !== undefined && before !== undefined) {
    throw new PetrelError('validation_error', 'after, before: only one of the two cursors may be given');
  }
  return { limit, ...(after ? { after } : {}), ...(before ? { before } : {}) };
}

/** Page through an in-memory list (newest first) by id cursor. */
export function pageArray<T extends { id: string }>(
  items: T[],
  q: PageQuery,
): { data: T[]; has_more: boolean } {
  let start = 0;
  let end = items.length;
  if (q.after) {
    const i = items.findIndex((x) => x.id === q.after);
    if (i < 0) throw new PetrelError('validation_error', 'after: no such item');
    start = i + 1;
  } else if (q.before) {
    const i = items.findIndex((x) => x.id === q.before);
    if (i < 0) throw new PetrelError('validation_error', 'before: no such item');
    end = i;
    start = Math.max(0, i - q.limit);
  }
  const data = items.slice(start, Math.min(end, start + q.limit));
  const has_more = q.before ? start > 0 : start + q.limit < end;
  return { data, has_more };
}

/**
 * A store's page as Resend's list object, each item through `wire`; a store answers null when
 * the cursor names nothing, which is a 422 naming the cursor and `what` it should have named.
 */
export function listBody<T, W = T>(
  result: { items: T[]; hasMore: boolean } | null,
  page: PageQuery,
  what: string,
  wire: (item: T) => W = (item) => item as unknown as W,
): { object: 'list'; has_more: boolean; data: W[] } {
  if (!result)
    throw new PetrelError('validation_error', `${page.after ? 'after' : 'before'}: no such ${what}`);
  return { object: 'list', has_more: result.hasMore, data: result.items.map((item) => wire(item)) };
}

/**
 * A GET handler for one of the team's lists: the page from the query (`defaultLimit` when
 * `limit` is omitted), `read` fetches it, and the answer is `listBody`'s list object.
 */
export function listHandler<T, W>(
  what: string,
  read: (teamId: string, page: PageQuery) => Promise<{ items: T[]; hasMore: boolean } | null>,
  wire: (item: T) => W,
  defaultLimit: number = LIMITS.paginationDefault,
): RequestHandler {
  return async (req, res) => {
    const page = parsePageQuery(req, defaultLimit);
    res.json(listBody(await read(teamOf(res), page), page, what, wire));
  };
}
