/**
 * MTA-STS policy discovery for direct delivery (RFC 8461 section 3): the `_mta-sts.<domain>`
 * TXT record names the current policy id; the policy itself is fetched over HTTPS from
 * `https://mta-sts.<domain>/.well-known/mta-sts.txt` with a validated certificate, parsed by
 * mailauth's `parsePolicy`, and cached for its `max_age` — refetched when the TXT id changes.
 * What a policy allows is packages/core's (`policyAction`, `stsCandidates`).
 *
 * The fetch follows RFC 8461 section 3.3: HTTPS only, the certificate valid for the
 * `mta-sts.<domain>` name, no redirects followed, a 200 answer of media type text/plain, the
 * body bounded (64 KiB) and the whole exchange timed out. Fetches of one domain are shared by
 * concurrent deliveries.
 */
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import { LRUCache } from 'lru-cache';
import { parsePolicy } from 'mailauth/lib/mta-sts.js';
import {
  policyAction,
  policyFresh,
  type StsPolicy,
  type StsTxtLookup,
  type TlsRptResultType,
} from '@petrel/core';
import type { DirectDns } from './dns.js';

export interface MtaStsOptions {
  dns: DirectDns;
  /** HTTPS port of the policy host: 443 (test-only setting MTA_STS_HTTPS_PORT). */
  httpsPort?: number;
  /** Extra trusted CA certificates (PEM), besides the system's (test-only MTA_STS_CA_FILE). */
  extraCa?: string;
  /** Whole-fetch timeout (RFC 8461 section 3.3 leaves it to the sender). */
  timeoutMs?: number;
  /** Domains whose policy is kept. */
  maxEntries?: number;
  /** The clock policies' max_age is counted by (tests move it); default `Date`. */
  clock?: { now(): number };
  /** Each fetch and its outcome (metrics, logs). Must not throw. */
  onFetch?: (domain: string, outcome: 'ok' | 'error') => void;
}

/** The policy a delivery goes by, and a discovery failure for TLS-RPT. */
export interface StsLookup {
  /** The policy in force (`enforce` or `testing`); absent: no MTA-STS for this domain now. */
  policy?: StsPolicy;
  /** The policy could not be fetched or parsed (RFC 8460 section 4.3.2.3). */
  failure?: { resultType: TlsRptResultType; detail: string };
}

export interface MtaSts {
  lookup(domain: string): Promise<StsLookup>;
}

/** RFC 8461 section 3.3 leaves the size to the sender; 64 KiB is what other MTAs accept. */
const MAX_POLICY_BYTES = 64 * 1024;
const DEFAULT_TIMEOUT_MS = 10_000;
const STS_RECORD = /^v=STSv1\s*(;|$)/i;
/** RFC 8461 section 3.1: `id` is 1 to 32 letters and digits. */
const STS_ID = /(?:^|;)\s*id\s*=\s*([A-Za-z0-9]{1,32})\s*(?:;|$)/;

/** The `_mta-sts` TXT lookup as core reads it: exactly one STSv1 record with an id, or none. */
export function stsTxt(records: readonly string[]): StsTxtLookup {
  const sts = records.filter((r) => STS_RECORD.test(r.trim()));
  // RFC 8461 section 3.1: zero or several STSv1 records — the domain has no policy
  if (sts.length !== 1) return { kind: 'none' };
  const id = STS_ID.exec(sts[0]!)?.[1];
  return id === undefined ? { kind: 'none' } : { kind: 'id', id };
}

class FetchError extends Error {
  constructor(
    readonly resultType: TlsRptResultType,
    message: string,
  ) {
    super(message);
  }
}

export function createMtaSts(opts: MtaStsOptions): MtaSts {
  const clock = opts.clock ?? Date;
  const port = opts.httpsPort ?? 443;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ca = opts.extraCa !== undefined ? [...rootCertificates, opts.extraCa] : undefined;
  const policies = new LRUCache<string, StsPolicy>({ max: opts.maxEntries ?? 10_000 });
  const inFlight = new Map<string, Promise<StsLookup>>();

  async function download(domain: string): Promise<string> {
    const host = `mta-sts.${domain}`;
    const lookup = await opts.dns.addresses(host);
    if (lookup.kind !== 'addresses') {
      throw new FetchError('sts-policy-fetch-error', `${host}: ${lookup.detail}`);
    }
    const address = lookup.addresses[0]!;
    return new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: address,
          port,
          path: '/.well-known/mta-sts.txt',
          method: 'GET',
          // the certificate must be valid for the policy host's name (RFC 8461 section 3.3)
          servername: host,
          headers: { host, accept: 'text/plain' },
          rejectUnauthorized: true,
          ...(ca !== undefined && { ca }),
          timeout: timeoutMs,
          agent: false,
        },
        (res) => {
          const status = res.statusCode ?? 0;
          // RFC 8461 section 3.3: "HTTP 3xx redirects MUST NOT be followed"; only 200 is a policy
          if (status !== 200) {
            res.resume();
            return reject(new FetchError('sts-policy-fetch-error', `${host} answered HTTP ${status}`));
          }
          const type = String(res.headers['content-type'] ?? '');
          if (!/^text\/plain\b/i.test(type)) {
            res.resume();
            return reject(
              new FetchError('sts-policy-invalid', `${host} served ${type || 'no type'}, not text/plain`),
            );
          }
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_POLICY_BYTES) {
              req.destroy(
                new FetchError('sts-policy-invalid', `${host}: policy larger than ${MAX_POLICY_BYTES} bytes`),
              );
              return;
            }
            chunks.push(chunk);
          });
          res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new FetchError('sts-policy-fetch-error', `${host}: timed out`)));
      req.on('error', (err) => {
        if (err instanceof FetchError) return reject(err);
        // a certificate that does not validate for the name is its own result type
        const code = (err as { code?: unknown }).code;
        const webpki = typeof code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO|ALTNAME/.test(code);
        reject(
          new FetchError(webpki ? 'sts-webpki-invalid' : 'sts-policy-fetch-error', `${host}: ${err.message}`),
        );
      });
      req.end();
    });
  }

  async function fetchPolicy(domain: string, id: string): Promise<StsPolicy> {
    const text = await download(domain);
    let parsed: ReturnType<typeof parsePolicy>;
    try {
      parsed = parsePolicy(text);
    } catch (err) {
      throw new FetchError('sts-policy-invalid', `mta-sts.${domain}: ${(err as Error).message}`);
    }
    return {
      id,
      mode: parsed.mode,
      mx: (parsed.mx ?? []).map((m) => m.toLowerCase()),
      maxAgeS: Number(parsed.maxAge),
      lines: text
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter((l) => l !== ''),
      fetchedAtMs: clock.now(),
    };
  }

  async function discover(domain: string): Promise<StsLookup> {
    const cached = policies.get(domain);
    const txt = await opts.dns.txt(`_mta-sts.${domain}`);
    const lookup: StsTxtLookup =
      txt.kind === 'records'
        ? stsTxt(txt.records)
        : txt.kind === 'none'
          ? { kind: 'none' }
          : { kind: 'error', detail: txt.detail };
    const action = policyAction(cached, lookup, clock.now());
    if (action === 'no-policy') return {};
    if (action === 'use-cached') return inForce(cached!);
    const id = (lookup as { id: string }).id;
    try {
      const policy = await fetchPolicy(domain, id);
      policies.set(domain, policy);
      opts.onFetch?.(domain, 'ok');
      return inForce(policy);
    } catch (err) {
      opts.onFetch?.(domain, 'error');
      const failure =
        err instanceof FetchError
          ? { resultType: err.resultType, detail: err.message }
          : { resultType: 'sts-policy-fetch-error' as const, detail: String(err) };
      // RFC 8461 section 5.1: a failed refresh keeps the cached policy while it is fresh
      const fresh = cached !== undefined && policyFresh(cached, clock.now());
      return fresh ? { ...inForce(cached!), failure } : { failure };
    }
  }

  return {
    lookup(domain) {
      const key = domain.toLowerCase();
      let running = inFlight.get(key);
      if (!running) {
        running = discover(key).finally(() => inFlight.delete(key));
        inFlight.set(key, running);
      }
      return running;
    },
  };
}

function inForce(policy: StsPolicy): StsLookup {
  return policy.mode === 'none' ? {} : { policy };
}
