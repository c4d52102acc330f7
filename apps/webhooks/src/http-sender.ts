/**
 * The dispatcher's HTTP egress: one POST per attempt through undici, SSRF-safe.
 *
 * Before every attempt the endpoint is vetted again (vetted-endpoints.ts: a name's verdict reused
 * for at most a second), and the name is pinned to the address that passed: the agent's `lookup`
 * answers only pinned names, with the pinned address, so a DNS answer that changes between the
 * check and the connect (rebinding) is never used, and a name that was never vetted never
 * connects. The URL keeps the name, so the
 * Host header, SNI and certificate check are the endpoint's. Kept-alive connections were opened
 * to vetted addresses only.
 *
 * Redirects are not followed (undici's request never does: a 3xx is an answer, hence a failed
 * attempt); one deadline covers the whole attempt (attempt-deadlines.ts: one timer for all of
 * them); at most WEBHOOK_RESPONSE_MAX_BYTES of the response are read. The request goes to the
 * agent with the origin and path the verdict carries (undici's top-level `request(url)` would
 * parse the URL again on every attempt).
 */
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import {
  WEBHOOK_RESPONSE_MAX_BYTES,
  parseRetryAfter,
  ABORT_HEADER,
  ABORT_VALUE,
  type HostResolver,
  type WebhookRequest,
  type WebhookSendResult,
  type WebhookSender,
} from '@petrel/core';
import { vettedEndpoints } from './vetted-endpoints.js';
import { AttemptDeadlines } from './attempt-deadlines.js';

export interface HttpSenderOptions {
  allowPrivate: boolean;
  resolve: HostResolver;
  timeoutMs: number;
  /** Kept-alive connections per endpoint origin (the per-endpoint concurrency). */
  connectionsPerOrigin: number;
  /** Called with the address an attempt connects to (tests count would-be connections). */
  onConnect?: (target: { host: string; address: string }) => void;
  /** The clock of the vetted names and of Retry-After dates; default `Date`. */
  clock?: { now(): number };
}

export interface HttpSender extends WebhookSender {
  close(): Promise<void>;
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

export function createHttpSender(opts: HttpSenderOptions): HttpSender {
  const clock = opts.clock ?? Date;
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

  const vet = vettedEndpoints({ allowPrivate: opts.allowPrivate, resolve: opts.resolve, clock });
  const deadlines = new AttemptDeadlines(opts.timeoutMs);

  async function send(req: WebhookRequest): Promise<WebhookSendResult> {
    const started = performance.now();
    const latency = (): number => Math.round(performance.now() - started);
    // a deadline left unended (the vetting threw) expires unheard and leaves the list then
    const signal = deadlines.start();
    const vetted = await vet(req.endpoint);
    if (!vetted.ok) {
      signal.end();
      // a name that does not resolve may resolve later: retried; a refused address never is
      const kind = vetted.unresolved ? 'error' : 'refused';
      return { kind, message: vetted.reason, responseBody: vetted.reason, latencyMs: latency() };
    }
    if (vetted.host !== vetted.address) pins.set(vetted.url.hostname.toLowerCase(), vetted);
    else opts.onConnect?.({ host: vetted.host, address: vetted.address });
    try {
      const res = await agent.request({
        origin: vetted.origin,
        path: vetted.path,
        method: 'POST',
        headers: req.headers,
        body: req.body,
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
      const retryAfterMs = parseRetryAfter(
        Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        clock.now(),
      );
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
    } finally {
      signal.end();
    }
  }

  return {
    send,
    close: async () => {
      await agent.close(); // waits for the attempts in flight, their deadlines still running
      deadlines.close();
    },
  };
}

function describe(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code =
    typeof e?.code === 'string' ? e.code : typeof e?.cause?.code === 'string' ? e.cause.code : undefined;
  return code && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : '';
}
