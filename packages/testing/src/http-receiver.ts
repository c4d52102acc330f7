// A webhook endpoint for tests: plain node:http on 127.0.0.1 that records every request and
// answers by a script (status, body, headers, delay, held until released), e.g. 500 three times
// then 200.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Arrivals } from './arrivals.js';

/** One request as received. */
export interface RecordedRequest {
  method: string;
  /** Path with query string. */
  path: string;
  /** Lower-cased header names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** Raw body, UTF-8. */
  body: string;
  /** Date.now() when the body was complete. */
  receivedAt: number;
}

/** What the receiver answers. */
export interface ScriptedResponse {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (timeouts, slow endpoints). */
  delayMs?: number;
  /**
   * Answer only once this settles (then after `delayMs`, if set): an endpoint that holds its
   * requests until the test lets them go, however long the rest takes.
   */
  until?: Promise<unknown>;
}

/** Options of {@link startHttpReceiver}. */
export interface HttpReceiverOptions {
  /** Fixed port; a free one by default. */
  port?: number;
  /** Picks the answer; `n` is this request's 1-based ordinal. Default: 200 `ok`. */
  respond?: (req: RecordedRequest, n: number) => ScriptedResponse;
}

/** A running receiver. */
export interface HttpReceiver {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  port: number;
  readonly requests: RecordedRequest[];
  /** Resolves with the requests once at least `count` arrived (default timeout 10 s). */
  waitFor(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  clear(): void;
  /** Drops open connections and pending delayed answers, closes the port. */
  stop(): Promise<void>;
}

/** Starts the receiver on 127.0.0.1. */
export async function startHttpReceiver(opts: HttpReceiverOptions = {}): Promise<HttpReceiver> {
  const arrivals = new Arrivals<RecordedRequest>('HTTP receiver', 'requests');
  const requests = arrivals.items;
  const timers = new Set<NodeJS.Timeout>();
  let seen = 0;
  const respond = opts.respond ?? ((): ScriptedResponse => ({ status: 200, body: 'ok' }));

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      seen += 1;
      arrivals.push(recorded);
      let answer: ScriptedResponse;
      try {
        answer = respond(recorded, seen);
      } catch (err) {
        answer = { status: 500, body: `respond() threw: ${String(err)}` };
      }
      const send = (): void => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body ?? '');
      };
      const answerNow = (): void => {
        if (!answer.delayMs) return send();
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, answer.delayMs);
        timers.add(timer);
      };
      if (answer.until) void answer.until.then(answerNow, answerNow);
      else answerNow();
    });
    req.on('error', () => undefined);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    waitFor: (count, timeoutMs) => arrivals.waitFor(count, timeoutMs),
    clear() {
      arrivals.clear();
      seen = 0;
    },
    stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
