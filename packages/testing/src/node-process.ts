// A Petrel app (or any Node entry) as a real child process, for tests where `kill -9` must be
// real: chaos scenarios kill and restart API and worker processes under load.
import { spawn, type ChildProcess } from 'node:child_process';
import { exited, killOnExit, outputTail, terminate } from './child-registry.js';
import { waitUntil } from './wait.js';

export interface NodeProcessOptions {
  /** Environment on top of PATH (nothing else is inherited, so the app sees only what it is given). */
  env: Record<string, string>;
  /** Resolves `true` once the app is up (e.g. its /health answers); polled until `readyTimeoutMs`. */
  ready?: () => Promise<boolean>;
  readyTimeoutMs?: number;
}

export interface NodeProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last few KB the process wrote to stdout and stderr. */
  output(): string;
  /** Sends a signal (SIGKILL by default) and returns at once. */
  kill(signal?: NodeJS.Signals): void;
  /** Resolves once the process has exited. */
  exited(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `node <entry>` and waits for `ready`; the child dies with the test process. */
export function startNodeProcess(entry: string, opts: NodeProcessOptions): Promise<NodeProcess> {
  return startProcess(process.execPath, [entry], opts, entry);
}

/**
 * Starts any command the same way (e.g. a Petrel app inside the container image, under
 * `buildah run`); `name` labels its errors (default: the command line).
 */
export async function startProcess(
  command: string,
  args: readonly string[],
  opts: NodeProcessOptions,
  name = [command, ...args].join(' '),
): Promise<NodeProcess> {
  const child = spawn(command, args, {
    env: { PATH: process.env.PATH ?? '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killOnExit(child);
  const output = outputTail(child, 16_000);
  const handle: NodeProcess = {
    child,
    pid: child.pid ?? -1,
    output,
    kill: (signal = 'SIGKILL') => void child.kill(signal),
    exited: () => exited(child),
    stop: (graceMs = 10_000) => terminate(child, 'SIGTERM', graceMs),
  };
  if (opts.ready) {
    const ready = opts.ready;
    const gone = () => child.exitCode !== null || child.signalCode !== null;
    try {
      await waitUntil(async () => gone() || (await ready().catch(() => false)), {
        timeoutMs: opts.readyTimeoutMs ?? 30_000,
        message: `${name} to be ready`,
      });
      if (gone())
        throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    } catch (err) {
      await terminate(child, 'SIGKILL');
      throw new Error(`${(err as Error).message}\n--- output ---\n${output()}`, { cause: err });
    }
  }
  return handle;
}
