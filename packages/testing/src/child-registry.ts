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

/**
 * SIGKILLs the child when this process exits normally. No signal handlers on purpose: they
 * would change how the test runner dies. Death by signal is covered per child instead:
 * redis-server runs under `setpriv --pdeathsig`, the sink process exits when its IPC closes.
 */
export function killOnExit(child: ChildProcess): void {
  if (!installed) {
    installed = true;
    process.on('exit', killAll);
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
