/** A page request over a creation-time listing, newest first (Resend's cursor pagination). */
export interface PageRequest {
  limit: number;
  after?: string;
  before?: string;
}

/** A page of results; null from a lister means the cursor names nothing. */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
}
