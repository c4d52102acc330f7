// Options and handle of a test Redis, shared by the local and the container implementation.

/** Options of startRedis(). */
export interface StartRedisOptions {
  /** AOF persistence, `true` by default (the harness setting; restart() then keeps the data). */
  appendonly?: boolean;
  /** e.g. `'24mb'` for the memory-full scenario; unset means no limit. */
  maxmemory?: string;
  /** Fixed port; a free one by default. */
  port?: number;
  /** Data directory (kept on stop); a fresh temp dir by default (removed on stop). */
  dir?: string;
}

/** A running Redis owned by one test suite. */
export interface TestRedis {
  /** `redis://host:port` */
  url: string;
  host: string;
  port: number;
  /** Data directory (local mode); `/data` inside the container (container mode). */
  dir: string;
  mode: 'local' | 'container';
  /** Graceful shutdown; removes the temp dir it created. Final: no restart() after it. */
  stop(): Promise<void>;
  /** Sends a signal (SIGKILL by default) and returns at once: for chaos tests. */
  kill(signal?: NodeJS.Signals): void;
  /** Waits for the current process to end (SIGTERM if still up), starts again on the same port and dir. */
  restart(): Promise<void>;
}

/** The harness flags shared by both modes (port, bind and dir are mode-specific). */
export function harnessArgs(opts: StartRedisOptions): string[] {
  return redisArgs({
    appendonly: opts.appendonly === false ? 'no' : 'yes',
    appendfsync: 'everysec',
    'maxmemory-policy': 'noeviction',
    save: '',
    ...(opts.maxmemory ? { maxmemory: opts.maxmemory } : {}),
  });
}

/** `{ port: '6379' }` → `['--port', '6379']` */
export function redisArgs(flags: Record<string, string>): string[] {
  return Object.entries(flags).flatMap(([name, value]) => [`--${name}`, value]);
}
