/**
 * The start of every Petrel process, written once: parse the configuration (a bad one exits with
 * one readable message listing every bad variable), the logger and default metrics, a lifecycle
 * that closes what started in reverse order on SIGTERM/SIGINT, and an exit code 1 when start-up
 * fails. A process of one part (`serve`) also opens its runtime and serves /health, /ready and
 * /metrics on METRICS_PORT.
 */
import {
  Lifecycle,
  enableDefaultMetrics,
  initLogger,
  log,
  startHealthServer,
  type HttpServerTimeouts,
} from '@petrel/observability';
import type { RuntimeConfig } from './config.js';
import { Runtime } from './runtime.js';

export interface ProcessConfig extends RuntimeConfig, HttpServerTimeouts {
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  METRICS_PORT: number;
  METRICS_HOST: string;
}

/** A started part of a process. */
export interface Component {
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

/** A runtime for `what` (its name in the error when REDIS_URL is missing). */
export function openRuntime(config: RuntimeConfig, name: string, what = name): Runtime {
  if (!config.REDIS_URL) throw new Error(`REDIS_URL is required to start ${what}`);
  return new Runtime({ ...config, REDIS_URL: config.REDIS_URL }, name);
}

/**
 * The runtime a part runs on: `shared` (the all-in-one's, closed by its owner), else one of its
 * own, which `release` closes after the part.
 */
export function partRuntime(
  config: RuntimeConfig,
  name: string,
  what: string,
  shared?: Runtime,
): { rt: Runtime; release(): Promise<void> } {
  if (shared) return { rt: shared, release: async () => undefined };
  const rt = openRuntime(config, name, what);
  return { rt, release: () => rt.close() };
}

/**
 * A part's start (the API, the worker, …), written once: `start` runs on `shared` (the
 * all-in-one's runtime, closed by its owner) or on a runtime of its own, which closes after the
 * part's own close, or at once when the start fails. The part answers /ready with Redis's PING
 * unless `start` returns a check of its own.
 */
export function partStart<C extends RuntimeConfig, E extends object, H extends { close(): Promise<void> }>(
  name: string,
  what: string,
  start: (config: C, rt: Runtime, ext: E) => Promise<H>,
): (config: C, ext?: E, shared?: Runtime) => Promise<H & Component> {
  return async (config, ext = {} as E, shared) => {
    const { rt, release } = partRuntime(config, name, what, shared);
    const part = await start(config, rt, ext).catch(async (err: unknown) => {
      await release();
      throw err;
    });
    return {
      ready: () => rt.ready(),
      ...part,
      async close() {
        await part.close();
        await release();
      },
    };
  };
}

export async function runProcess<C extends ProcessConfig>(spec: {
  /** `api`, `worker`, …: the logger's and the metrics' `app`. */
  name: string;
  /** How the fatal log line names the process (`API failed to start`). */
  title: string;
  loadConfig: () => C;
  /** Starts the process's parts, each registered with the lifecycle. */
  start: (config: C, lifecycle: Lifecycle) => Promise<void>;
}): Promise<void> {
  let config: C;
  try {
    config = spec.loadConfig();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
  initLogger({ level: config.LOG_LEVEL, name: spec.name });
  enableDefaultMetrics(spec.name);
  const lifecycle = new Lifecycle();
  lifecycle.installSignalHandlers();
  try {
    await spec.start(config, lifecycle);
  } catch (err) {
    log().fatal({ err }, `${spec.title} failed to start`);
    await lifecycle.stop('start-up failure');
    process.exit(1);
  }
}

/** `runProcess`'s start for a process of one part: its runtime, the part, the health server. */
export function serve<C extends ProcessConfig>(
  name: string,
  start: (config: C, rt: Runtime) => Promise<Component>,
): (config: C, lifecycle: Lifecycle) => Promise<void> {
  return async (config, lifecycle) => {
    const rt = openRuntime(config, name);
    lifecycle.onStop('runtime', () => rt.close());
    const part = await start(config, rt);
    lifecycle.onStop(name, () => part.close());
    const health = await startHealthServer({
      port: config.METRICS_PORT,
      host: config.METRICS_HOST,
      timeouts: config,
      ready: () => part.ready(),
    });
    lifecycle.onStop('health', () => health.close());
  };
}
