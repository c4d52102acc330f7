/**
 * The dashboard's URLs: query strings for the API and the hash routes (`#/emails/<id>?to=x`).
 * Pure (no DOM); tested in url.test.ts.
 */
export type QueryValues = Record<string, string | number | boolean | null | undefined>;

/** `?a=1&b=x` from the values that are set (empty strings and null are left out). */
export function buildQuery(values: QueryValues): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === null || v === '') continue;
    params.set(k, String(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

export interface Route {
  /** Path segments after `#/`, decoded: `#/emails/abc` → ['emails', 'abc']. */
  segments: string[];
  query: Record<string, string>;
}

/** The app's route from `location.hash` (`#/emails/abc?to=x`). */
export function parseRoute(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const q = raw.indexOf('?');
  const path = q < 0 ? raw : raw.slice(0, q);
  const query: Record<string, string> = {};
  if (q >= 0) new URLSearchParams(raw.slice(q + 1)).forEach((v, k) => (query[k] = v));
  const segments = path
    .split('/')
    .filter(Boolean)
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
  return { segments, query };
}

/** The hash for a route: `href('emails', id)` → `#/emails/<id>`. */
export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join('/')}`;
}
