/** Cursor paging over an in-memory list (newest first), as the store's `pageIndex` pages. */
import type { Page, PageRequest } from '@petrel/core';

/** A page of `items` (newest first); null when the cursor names no item, like the store. */
export function pageNewestFirst<T extends { id: string }>(
  items: readonly T[],
  page: PageRequest,
): Page<T> | null {
  const cursor = page.after ?? page.before;
  const at = cursor === undefined ? -1 : items.findIndex((x) => x.id === cursor);
  if (cursor !== undefined && at < 0) return null;
  const start = page.before !== undefined ? Math.max(0, at - page.limit) : at + 1;
  const end = page.before !== undefined ? at : items.length;
  return {
    items: items.slice(start, Math.min(end, start + page.limit)),
    hasMore: page.before !== undefined ? start > 0 : start + page.limit < end,
  };
}

/** Team `teamId`'s list in `byTeam`, created empty on first use. */
export function teamList<T>(byTeam: Map<string, T[]>, teamId: string): T[] {
  let list = byTeam.get(teamId);
  if (!list) byTeam.set(teamId, (list = []));
  return list;
}
