/**
 * The dispatcher's HTTP egress: one POST per attempt through undici, SSRF-safe.
 *
 * Before every attempt the endpoint is vetted again (`vetEndpoint` in core: scheme, special-use
 * names, every resolved address public unless WEBHOOK_ALLOW_PRIVATE_NETWORKS; a name's verdict
 * reused for at most a second), and the name is pinned to the address that passed: the agent's `lookup` answers only pinned names, with the
 * pinned address, so a DNS answer that changes between the check and the connect (rebinding) is
 * never used, and a name that was never vetted never connects. The URL keeps the name, so the
 * Host header, SNI and certificate check are the endpoint's. Kept-alive connections were opened
 * to vetted addresses only.
 *
 * Redirects are not followed (undici's request never does: a 3xx is an answer, hence a failed
 * attempt); one deadline covers the whole attempt; at most WEBHOOK_RESPONSE_MAX_BYTES of the
 * response are read.
 */
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import {
  WEBHOOK_RESPONSE_MAX_BYTES,
  parseRetryAfter,
  ABORT_HEADER,
  ABORT_VALUE,
  vetEndpoint,
  type HostResolver,
  type VettedEndpoint,
  type WebhookRequest,
  type WebhookSendResult,
  type WebhookSender,
} from '@petrel/core';

export interface HttpSenderOptions {
  allowPrivate: boolean;
  resolve: HostResolver;
  timeoutMs: number;
  /** Kept-alive connections per endpoint origin (the per-endpoint concurrency). */
  connectionsPerOrigin: number;
  /** Called with the address an attempt connects to (tests count would-be connections). */
  onConnect?: (target: { host: string; address: string }) => void;
  now?: () => number;
}

export interface HttpSender extends WebhookSender {
  close(): Promise<void>;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** How long a name's vetted address is reused before the name is resolved and checked again. */
const VETTED_NAME_MS = 1_000;
/** Endpoints whose verdict is kept at most (the map starts over beyond). */
const VETTED_MAX = 10_000;

export function createHttpSender(opts: HttpSenderOptions): HttpSender {
  const now = opts.now ?? Date.now;
  /** Vetted address per host name, set by each attempt before it connects. */
  const pins = new Map<string, { address: string; family: 4 | 6 }>();
  const lookup: LookupFunction = (hostname, options, callback) => {
    const pin = pins.get(hostname.toLowerCase());
    if (!pin) {
      const err = Object.assign(new Error(`${hostname} was not vetted`), { code: 'ENOTVETTED' });
      callback(err, '', 0);
      return;
    }
    opts.onConnect?.({ host: hostname, address: pin.address });
    if (options.all) callback(null, [{ address: pin.address, family: pin.family }]);
    else callback(null, pin.address, pin.family);
  };
  const agent = new Agent({
    connect: { lookup },
    connections: opts.connectionsPerOrigin,
    keepAliveTimeout: 10_000,
  });

  /**
   * Endpoints that passed, by URL. An IP literal's verdict depends on the URL alone, so it is
   * kept; a name's resolved-and-checked address is reused for VETTED_NAME_MS (the system
   * resolver gives no TTL): a changed DNS answer — a rebinding one included — is checked and
   * pinned within that bound. A refusal or a failed resolution is never kept.
   */
  const passed = new Map<string, { vetted: VettedEndpoint; until: number }>();
  async function vet(endpoint: string): Promise<VettedEndpoint> {
    const at = now();
    const hit = passed.get(endpoint);
    if (hit && hit.until > at) return hit.vetted;
    const vetted = await vetEndpoint(endpoint, { allowPrivate: opts.allowPrivate, resolve: opts.resolve });
    if (vetted.ok) {
      if (passed.size >= VETTED_MAX) passed.clear();
      passed.set(endpoint, {
        vetted,
        until: vetted.host === vetted.address ? Number.POSITIVE_INFINITY : at + VETTED_NAME_MS,
      });
    }
    return vetted;
  }

  async function send(req: WebhookRequest): Promise<WebhookSendResult> {
    const started = performance.now();
    const latency = (): number => Math.round(performance.now() - started);
    const signal = AbortSignal.timeout(opts.timeoutMs);
    const vetted = await vet(req.endpoint);
    if (!vetted.ok) {
      // a name that does not resolve may resolve later: retried; a refused address never is
      const kind = vetted.unresolved ? 'error' : 'refused';
      return { kind, message: vetted.reason, responseBody: vetted.reason, latencyMs: latency() };
    }
    if (vetted.host !== vetted.address) pins.set(vetted.url.hostname.toLowerCase(), vetted);
    else opts.onConnect?.({ host: vetted.host, address: vetted.address });
    try {
      const res = await request(vetted.url, {
        method: 'POST',
        headers: req.headers,
        body: req.body,
        dispatcher: agent,
        signal,
      });
      const chunks: Buffer[] = [];
      let kept = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        const room = WEBHOOK_RESPONSE_MAX_BYTES - kept;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        kept += Math.min(chunk.length, room);
        if (kept >= WEBHOOK_RESPONSE_MAX_BYTES) {
          res.body.destroy();
          break;
        }
      }
      const retryAfter = res.headers['retry-after'];
      const abortHeader = res.headers[ABORT_HEADER];
      const abort = (Array.isArray(abortHeader) ? abortHeader : [abortHeader]).some(
        (v) => v?.trim().toLowerCase() === ABORT_VALUE,
      );
      const retryAfterMs = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, now());
      return {
        kind: 'response',
        status: res.statusCode,
        ...(retryAfterMs !== undefined && { retryAfterMs }),
        ...(abort && { abort }),
        responseBody: utf8.decode(Buffer.concat(chunks)),
        latencyMs: latency(),
      };
    } catch (err) {
      const message = signal.aborted
        ? `timed out after ${opts.timeoutMs} ms`
        : `request failed${describe(err)}`;
      return { kind: 'error', message, responseBody: message, latencyMs: latency() };
    }
  }

  return { send, close: () => agent.close() };
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return code && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : '';
}
