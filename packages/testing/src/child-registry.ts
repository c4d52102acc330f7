import type { ChildProcess } from 'node:child_process';

// Children started by this package (redis-server, sink processes) must not outlive the test
// process: a leftover redis-server keeps its port and its temp dir, and a later run trips on it.
const children = new Set<ChildProcess>();
let installed = false;

function killAll(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  // Keep the default "die on signal" unless someone else handles it.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/** SIGKILLs the child when this process exits (normally, or by SIGINT/SIGTERM/SIGHUP). */
export function killOnExit(child: ChildProcess): void {
  if (!installed) {
    installed = true;
    process.on('exit', killAll);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, onSignal);
  }
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Resolves once the child has exited (at once if it already has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Sends `signal`, waits up to `graceMs` for the exit, then SIGKILLs and waits again. */
export async function terminate(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  graceMs = 10_000,
): Promise<void> {
  const done = exited(child);
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  const outcome = await Promise.race([done, late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    child.kill('SIGKILL');
    await done;
  }
}

/** Keeps the last `max` characters a child wrote, for start-up error messages. */
export function outputTail(child: ChildProcess, max = 4000): () => string {
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString('utf8')).slice(-max);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => tail.trim();
}
