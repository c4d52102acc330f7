/**
 * The SSRF verdicts of the webhook sender (`vetEndpoint` in core: scheme, special-use names, every
 * resolved address public unless WEBHOOK_ALLOW_PRIVATE_NETWORKS), kept per endpoint URL. An IP
 * literal's verdict depends on the URL alone, so it is kept; a name's resolved-and-checked address
 * is reused for VETTED_NAME_MS (the system resolver gives no TTL): a changed DNS answer — a
 * rebinding one included — is checked and pinned within that bound. A refusal or a failed
 * resolution is never kept. A passed verdict carries the request's origin and path, worked out
 * once, so an attempt hands them to undici as they are instead of a URL it would parse again.
 */
import { vetEndpoint, type HostResolver, type VettedEndpoint } from '@petrel/core';

/** How long a name's vetted address is reused before the name is resolved and checked again. */
const VETTED_NAME_MS = 1_000;
/** Endpoints whose verdict is kept at most (the map starts over beyond). */
const VETTED_MAX = 10_000;

/** A verdict; one that passed has the request's origin and path (`pathname` + `search`). */
export type VettedTarget =
  | (Extract<VettedEndpoint, { ok: true }> & { origin: string; path: string })
  | Extract<VettedEndpoint, { ok: false }>;

export function vettedEndpoints(opts: {
  allowPrivate: boolean;
  resolve: HostResolver;
  /** The clock a name's verdict expires by (VETTED_NAME_MS). */
  clock: { now(): number };
}): (endpoint: string) => Promise<VettedTarget> {
  const passed = new Map<string, { vetted: VettedTarget; until: number }>();
  return async (endpoint) => {
    const at = opts.clock.now();
    const hit = passed.get(endpoint);
    if (hit && hit.until > at) return hit.vetted;
    const verdict = await vetEndpoint(endpoint, { allowPrivate: opts.allowPrivate, resolve: opts.resolve });
    if (!verdict.ok) return verdict;
    const vetted = {
      ...verdict,
      origin: verdict.url.origin,
      path: verdict.url.pathname + verdict.url.search,
    };
    if (passed.size >= VETTED_MAX) passed.clear();
    passed.set(endpoint, {
      vetted,
      until: vetted.host === vetted.address ? Number.POSITIVE_INFINITY : at + VETTED_NAME_MS,
    });
    return vetted;
  };
}
