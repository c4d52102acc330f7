/**
 * The inbound server's message checks (core's MessageAuthenticator, authentication.ts) with
 * mailauth (https://github.com/postalsys/mailauth): SPF (RFC 7208) for the client IP, HELO and
 * MAIL FROM; every DKIM-Signature (RFC 6376); DMARC (RFC 7489) with its policy and alignment; the
 * ARC chain (RFC 8617); BIMI where DMARC passes under an enforcing policy. mailauth writes the
 * Authentication-Results field (RFC 8601) stating them under `authservId`.
 *
 * DNS goes through a node:dns/promises Resolver on `servers` (DNS_SERVERS; the system's when
 * empty), so tests answer from a local authoritative server. Answers are kept `cacheMs` (60 s),
 * NXDOMAIN and NODATA too (RFC 2308 negative caching), a failure never: a sender's SPF, DKIM key
 * and DMARC record are the same for every message of a burst, and each query costs CPU. Without a DMARC record mailauth
 * computes no alignment; core's report rule still needs it, so it is computed here the way
 * DMARC would (relaxed: same organizational domain, mailauth's own `getAlignment`).
 */
import { Resolver } from 'node:dns/promises';
import { createRequire } from 'node:module';
import { LRUCache } from 'lru-cache';
import { authenticate } from 'mailauth';
import type { InboundAuthentication } from '@petrel/contracts';
import type { AuthenticatedMessage, MessageAuthenticator, SmtpEnvelopeFacts } from '@petrel/core';

/** mailauth's alignment test (lib/tools.js, untyped): the entry whose org domain is From's, or false. */
const { getAlignment } = createRequire(import.meta.url)('mailauth/lib/tools.js') as {
  getAlignment(
    fromDomain: string,
    domains: { domain: string }[],
    opts?: { strict: boolean },
  ): { domain: string } | false;
};

export interface MailauthOptions {
  /** `ip` or `ip:port` resolvers (DNS_SERVERS); empty: the system's. */
  servers?: readonly string[];
  /** The authserv-id of Authentication-Results (RFC 8601 section 2.5): this server's name. */
  authservId: string;
  /** Per DNS query try, in ms (c-ares `timeout`). */
  timeoutMs?: number;
  /** How long a DNS answer is reused, in ms (0: never). */
  cacheMs?: number;
}

type Answer = string[] | string[][];
/** The DNS errors that are answers (the name or the type does not exist): cached like records. */
const NEGATIVE = new Set(['ENOTFOUND', 'ENODATA']);
const CACHE_ENTRIES = 10_000;

const POLICIES = new Set(['none', 'quarantine', 'reject']);

export function createMailauthAuthenticator(opts: MailauthOptions): MessageAuthenticator {
  const dns = new Resolver({ timeout: opts.timeoutMs ?? 3_000, tries: 2 });
  if (opts.servers !== undefined && opts.servers.length > 0) dns.setServers([...opts.servers]);
  // mailauth asks with the record type as a string and reads TXT answers as string[][]
  const lookup = (name: string, rrtype: string) => dns.resolve(name, rrtype) as Promise<Answer>;
  const cacheMs = opts.cacheMs ?? 60_000;
  const cache = new LRUCache<string, { answer: Answer } | { error: Error }>({
    max: CACHE_ENTRIES,
    ttl: Math.max(1, cacheMs),
  });
  const resolver = async (name: string, rrtype: string): Promise<Answer> => {
    const key = `${rrtype} ${name.toLowerCase()}`;
    const hit = cacheMs > 0 ? cache.get(key) : undefined;
    if (hit) {
      if ('error' in hit) throw hit.error;
      return hit.answer;
    }
    try {
      const answer = await lookup(name, rrtype);
      if (cacheMs > 0) cache.set(key, { answer });
      return answer;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (cacheMs > 0 && typeof code === 'string' && NEGATIVE.has(code))
        cache.set(key, { error: err as Error });
      throw err;
    }
  };

  return {
    async authenticate(raw: Buffer, envelope: SmtpEnvelopeFacts): Promise<AuthenticatedMessage> {
      const r = await authenticate(raw, {
        ip: envelope.ip,
        helo: envelope.helo,
        ...(envelope.mailFrom !== null && { sender: envelope.mailFrom }),
        mta: opts.authservId,
        resolver,
      });
      const from = r.dkim.headerFrom.length === 1 ? r.dkim.headerFrom[0]! : null;
      const fromDomain = from === null ? null : from.slice(from.lastIndexOf('@') + 1).toLowerCase();
      const spf = r.spf
        ? { result: r.spf.status.result, domain: r.spf.domain || null }
        : { result: 'none', domain: null };
      // an unsigned message has one row without a domain (`dkim=none`): no signature to list
      const dkim = r.dkim.results
        .filter((d) => d.signingDomain)
        .map((d) => ({
          result: d.status.result,
          domain: d.signingDomain,
          selector: d.selector ?? '',
          aligned: Boolean(d.status.aligned),
        }));
      const relaxed = (domains: string[]): string | null => {
        if (fromDomain === null) return null;
        const hit = getAlignment(
          fromDomain,
          domains.map((domain) => ({ domain })),
        );
        return hit ? hit.domain : null;
      };
      const passingSpf = spf.result === 'pass' && spf.domain !== null ? [spf.domain] : [];
      const passingDkim = dkim.filter((d) => d.result === 'pass').map((d) => d.domain);
      const dm = r.dmarc;
      const hasRecord = dm !== false && dm.status.result !== 'none' && dm.status.result !== 'temperror';
      const results: InboundAuthentication = {
        spf,
        dkim,
        dmarc: {
          result: dm ? dm.status.result : 'none',
          domain: fromDomain,
          policy:
            hasRecord && POLICIES.has(dm.policy) ? (dm.policy as 'none' | 'quarantine' | 'reject') : null,
          pct: hasRecord ? Number(dm.pct ?? 100) : null,
          alignment:
            hasRecord && dm.alignment
              ? { spf: dm.alignment.spf.result || null, dkim: dm.alignment.dkim.result || null }
              : { spf: relaxed(passingSpf), dkim: relaxed(passingDkim) },
        },
        arc: { result: r.arc ? r.arc.status.result : 'none' },
        bimi: {
          result: r.bimi ? r.bimi.status.result : 'none',
          location: (r.bimi && r.bimi.location) || null,
        },
      };
      // mailauth's headers: Received-SPF, then Authentication-Results; only the latter is kept
      const at = r.headers.search(/^Authentication-Results:/im);
      return { results, header: at >= 0 ? r.headers.slice(at) : '' };
    },
  };
}
