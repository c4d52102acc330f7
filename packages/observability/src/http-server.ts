/**
 * How every HTTP server of Petrel listens (the API, each process's health + /metrics server):
 * one place that applies the configured timeouts (HTTP_*_TIMEOUT_MS in packages/config), so no
 * server runs on Node's defaults, where a client that declares a body and then stalls holds the
 * connection for 300 s.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The timeouts of a process's HTTP servers, as the configuration names them (httpServerEnv). */
export interface HttpServerTimeouts {
  HTTP_REQUEST_TIMEOUT_MS: number;
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_KEEPALIVE_TIMEOUT_MS: number;
}

/** Node's timer granularity for a request timeout: a tenth of it, so a 408 comes ≤ 10 % late. */
const CHECKS_PER_TIMEOUT = 10;
/** Never check more often than this (ms): a sweep walks every open connection. */
const MIN_CHECK_INTERVAL_MS = 100;

/**
 * How often Node looks for requests past their timeouts. Node does not time each request: it
 * sweeps its connections every `connectionsCheckingInterval` (default 30 s, Node docs,
 * http.createServer), so a 408 can come up to that long after the timeout — with a 15 s
 * headersTimeout, after 45 s. A tenth of the shortest timeout keeps the documented values true
 * to within 10 %.
 */
export function connectionsCheckingInterval(t: HttpServerTimeouts): number {
  const shortest = Math.min(t.HTTP_HEADERS_TIMEOUT_MS, t.HTTP_REQUEST_TIMEOUT_MS);
  return Math.max(MIN_CHECK_INTERVAL_MS, Math.floor(shortest / CHECKS_PER_TIMEOUT));
}

/**
 * An HTTP server for `handler` with the configured timeouts, listening on `host:port` (port 0:
 * a free one). No ordering between the keep-alive and headers timeouts is needed: since Node 18
 * a request's headers timer starts with its first byte, not when the connection went idle after
 * the previous response (the http-server unit test shows it), so an idle keep-alive connection
 * longer than HTTP_HEADERS_TIMEOUT_MS still takes its next request.
 */
export async function listenHttp(
  handler: RequestListener,
  opts: { port: number; host: string; timeouts: HttpServerTimeouts },
): Promise<{ server: Server; port: number }> {
  const server = createServer(
    {
      requestTimeout: opts.timeouts.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeout: opts.timeouts.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeout: opts.timeouts.HTTP_KEEPALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: connectionsCheckingInterval(opts.timeouts),
    },
    handler,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}
