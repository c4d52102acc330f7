/**
 * URL parsing that answers instead of throwing. The WHATWG URL parser (what browsers and Node's
 * `URL` implement) throws on text that is no URL; Node 20 has no `URL.parse`, which returns null
 * instead (added in Node 22.1).
 */

/** `text` as a WHATWG URL, or null when it is not one. */
export function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** True for an http: or https: URL: the only schemes Petrel fetches, redirects to or posts to. */
export function isHttpScheme(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}
