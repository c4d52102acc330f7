// Child processes of the bench: every child is registered and killed when the bench exits, on
// success, on failure, on Ctrl-C and on an uncaught error. Output is kept as a tail for errors
// and, when a log directory is set, written to one file per child.
import { spawn, fork } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';

const children = new Set();
let logDir;
let seq = 0;

export function setLogDir(dir) {
  logDir = dir;
}

const exitHooks = new Set();

/** A synchronous clean-up step run when the bench exits in any way (e.g. removing a temp dir). */
export function onExitSync(fn) {
  exitHooks.add(fn);
  return () => exitHooks.delete(fn);
}

function killAllSync() {
  for (const c of children) {
    try {
      process.kill(c.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  children.clear();
  for (const fn of exitHooks) {
    try {
      fn();
    } catch {
      // best effort
    }
  }
  exitHooks.clear();
}

let installed = false;
export function installExitHandlers() {
  if (installed) return;
  installed = true;
  process.on('exit', killAllSync);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(sig, () => {
      process.stderr.write(`\nbench: ${sig}, killing ${children.size} child process(es)\n`);
      killAllSync();
      process.exit(130);
    });
  }
}

class Child {
  constructor(name, proc) {
    this.name = name;
    this.proc = proc;
    this.pid = proc.pid;
    this.tailBuf = '';
    this.exitCode = undefined;
    this.signal = undefined;
    const id = ++seq;
    this.log = logDir
      ? createWriteStream(join(logDir, `${String(id).padStart(2, '0')}-${name}.log`))
      : undefined;
    const onData = (d) => {
      this.tailBuf = (this.tailBuf + d.toString('utf8')).slice(-6000);
      this.log?.write(d);
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    this.exited = new Promise((resolve) => {
      proc.on('exit', (code, signal) => {
        this.exitCode = code;
        this.signal = signal;
        children.delete(this);
        this.log?.end();
        resolve({ code, signal });
      });
    });
    children.add(this);
  }

  get alive() {
    return this.exitCode === undefined && this.signal === undefined;
  }

  tail() {
    return this.tailBuf.trim().split('\n').slice(-25).join('\n');
  }

  /** Throws if the child died. */
  assertAlive() {
    if (!this.alive) {
      throw new Error(
        `${this.name} (pid ${this.pid}) exited (${this.exitCode ?? this.signal})\n${this.tail()}`,
      );
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000) {
    if (!this.alive) return;
    try {
      this.proc.kill('SIGTERM');
    } catch {
      // gone
    }
    const timer = setTimeout(() => {
      try {
        this.proc.kill('SIGKILL');
      } catch {
        // gone
      }
    }, graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  kill() {
    try {
      this.proc.kill('SIGKILL');
    } catch {
      // gone
    }
    return this.exited;
  }
}

/** Spawns any executable. */
export function spawnProcess(name, cmd, args, { env = {}, cwd } = {}) {
  const proc = spawn(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Child(name, proc);
}

/** Spawns a node script (no IPC). `nodeArgs` go before the script (e.g. --cpu-prof). */
/** Node flags for every Node child of the bench, both sides alike (e.g. "--max-semi-space-size=64"). */
const EXTRA_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

export function spawnNode(name, script, { env = {}, args = [], nodeArgs = [], cwd } = {}) {
  return spawnProcess(name, process.execPath, [...EXTRA_NODE_ARGS, ...nodeArgs, script, ...args], {
    env,
    cwd,
  });
}

/** Forks a node script with an IPC channel. */
export function forkNode(name, script, { env = {}, args = [], nodeArgs = [] } = {}) {
  const proc = fork(script, args, {
    env: { ...process.env, ...env },
    execArgv: nodeArgs,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  return new Child(name, proc);
}

export function liveChildren() {
  return [...children];
}
