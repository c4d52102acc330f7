/**
 * The root pino logger and the per-request / per-job context. Code calls `log()` and gets the
 * logger bound to whatever request or job it runs in (AsyncLocalStorage); nobody threads a logger
 * by hand.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type Logger, type LevelWithSilent } from 'pino';

let root: Logger = pino({ level: 'info', base: { pid: process.pid } });
const context = new AsyncLocalStorage<Logger>();

/** Configure the process's root logger once at start-up. */
export function initLogger(opts: { level: LevelWithSilent; name: string }): Logger {
  root = pino({
    level: opts.level,
    base: { pid: process.pid, app: opts.name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.authorization', 'token', '*.token'], censor: '[redacted]' },
  });
  return root;
}

/** The logger of the current request/job, or the root logger outside any. */
export function log(): Logger {
  return context.getStore() ?? root;
}

/** Run `fn` with a child logger bound to `bindings` (request id, team, job id, email id…). */
export function withLogContext<T>(bindings: Record<string, unknown>, fn: () => T): T {
  return context.run(log().child(bindings), fn);
}

export type { Logger };

/**
 * An `error` listener for a Redis connection: ioredis reconnects by itself and failed commands
 * reach their callers, so a connection error is logged (structured, warn) and nothing more.
 * Without a listener ioredis prints "[ioredis] Unhandled error event" to stderr.
 */
export function logConnectionError(connection: string): (err: Error) => void {
  return (err) => log().warn({ connection, err: err.message }, 'Redis connection error; reconnecting');
}
