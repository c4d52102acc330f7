/**
 * The one way a use-case turns a lookup that found nothing into the API's 404 (`not_found`,
 * "<What> not found", as Resend answers).
 */
import { notFound } from '@petrel/contracts';

/** What `lookup` found, or a 404 naming `what` when it found nothing. */
export async function found<T>(lookup: Promise<T | null | undefined>, what: string): Promise<T> {
  const value = await lookup;
  if (value === null || value === undefined) throw notFound(what);
  return value;
}

/** The id of what an update or a removal found (the `{ id }` Resend answers), or a 404 naming `what`. */
export async function foundId(
  lookup: Promise<{ id: string } | null | undefined>,
  what: string,
): Promise<{ id: string }> {
  return { id: (await found(lookup, what)).id };
}
