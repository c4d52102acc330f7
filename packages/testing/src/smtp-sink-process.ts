// The SMTP sink in its own Node process (bin/smtp-sink.mjs), for benchmarks and chaos runs where
// recording mail must not steal CPU from the workers under test. Talks to it over IPC; the
// child also writes a JSONL ledger, so results survive the test process for post-mortems.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConnectionRefusal, SinkAttempt, SinkPlan } from '../bin/sink-core.mjs';
import { killOnExit, outputTail, terminate } from './child-registry.js';
import { waitUntil } from './wait.js';

/** Path of the child entry; the same relative path works from src/ (vitest) and dist/. */
export const SMTP_SINK_BIN = fileURLToPath(new URL('../bin/smtp-sink.mjs', import.meta.url));

/** One ledger line, written before the sink replies 250. */
export interface LedgerEntry {
  /** The Message-ID header as sent (angle brackets included), '' if none. */
  messageId: string;
  to: string[];
  bytes: number;
  receivedAt: number;
}

/** Options of {@link startSmtpSinkProcess}. */
export interface SmtpSinkProcessOptions {
  /** Fixed port; a free one by default. */
  port?: number;
  /** JSONL ledger path (kept); a temp file by default (removed on stop). */
  ledger?: string;
  /** Scripted replies, as for the in-process sink (must be JSON). */
  plan?: SinkPlan;
  /**
   * Wait this long after recording a message (ledger written) before replying 250: a slow relay,
   * so that many sends are in flight — and a crash lands between "received" and "250 seen".
   */
  replyDelayMs?: number;
}

/** A sink running in a child process. */
export interface SmtpSinkProcess {
  url: string;
  port: number;
  pid: number;
  ledgerPath: string;
  count(): Promise<number>;
  messageIds(): Promise<string[]>;
  attemptsFor(address: string): Promise<number>;
  attempts(): Promise<SinkAttempt[]>;
  rejectConnections(n: number, reply?: ConnectionRefusal): Promise<void>;
  clear(): Promise<void>;
  /** Polls count() until it reaches `count` (default timeout 30 s). */
  waitFor(count: number, timeoutMs?: number): Promise<number>;
  /** Parses the ledger file (call before stop() when the ledger is a temp file). */
  readLedger(): Promise<LedgerEntry[]>;
  stop(): Promise<void>;
}

interface Reply {
  id?: number;
  ok?: boolean;
  result?: unknown;
  error?: string;
  ready?: boolean;
  port?: number;
}

const START_TIMEOUT_MS = 10_000;

function waitForReady(child: ChildProcess, tail: () => string): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`SMTP sink process not ready after ${START_TIMEOUT_MS} ms\n${tail()}`)),
      START_TIMEOUT_MS,
    );
    const onMessage = (msg: Reply): void => {
      if (!msg.ready || msg.port === undefined) return;
      cleanup();
      resolve(msg.port);
    };
    const onExit = (code: number | null, signal: string | null): void =>
      fail(new Error(`SMTP sink process exited (${code ?? signal}) before it was ready\n${tail()}`));
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const fail = (err: Error): void => {
      cleanup();
      reject(err);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Forks bin/smtp-sink.mjs and waits until it listens on 127.0.0.1. */
export async function startSmtpSinkProcess(opts: SmtpSinkProcessOptions = {}): Promise<SmtpSinkProcess> {
  const tempDir = opts.ledger === undefined ? await mkdtemp(join(tmpdir(), 'petrel-sink-')) : undefined;
  const ledgerPath = opts.ledger ?? join(tempDir ?? tmpdir(), 'ledger.jsonl');
  const args = ['--port', String(opts.port ?? 0), '--ledger', ledgerPath];
  if (opts.plan) args.push('--plan', JSON.stringify(opts.plan));
  if (opts.replyDelayMs) args.push('--reply-delay-ms', String(opts.replyDelayMs));
  // execArgv: [] — the test runner's own flags (loaders, inspectors) must not leak into the sink.
  const child = fork(SMTP_SINK_BIN, args, { execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  killOnExit(child);
  const tail = outputTail(child);
  let port: number;
  try {
    port = await waitForReady(child, tail);
  } catch (err) {
    await terminate(child, 'SIGKILL');
    if (tempDir) await rm(tempDir, { recursive: true, force: true });
    throw err;
  }

  let nextId = 0;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (msg: Reply) => {
    if (msg.id === undefined) return;
    const call = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.ok) call?.resolve(msg.result);
    else call?.reject(new Error(`SMTP sink process: ${msg.error}`));
  });
  child.once('exit', (code, signal) => {
    for (const call of pending.values())
      call.reject(new Error(`SMTP sink process exited (${code ?? signal})\n${tail()}`));
    pending.clear();
  });
  const call = <T>(op: string, ...callArgs: unknown[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!child.connected) return reject(new Error('SMTP sink process is not running'));
      const id = ++nextId;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, op, args: callArgs });
    });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      // Graceful: the child flushes and closes its ledger, then exits on disconnect.
      await call('stop').catch(() => undefined);
      await terminate(child, 'SIGTERM', 5_000);
      if (tempDir) await rm(tempDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? 0,
    ledgerPath,
    count: () => call<number>('count'),
    messageIds: () => call<string[]>('messageIds'),
    attemptsFor: (address) => call<number>('attemptsFor', address),
    attempts: () => call<SinkAttempt[]>('attempts'),
    rejectConnections: (n, reply) => call<void>('rejectConnections', n, reply),
    clear: () => call<void>('clear'),
    async waitFor(count, timeoutMs = 30_000) {
      return waitUntil(
        async () => {
          const n = await call<number>('count');
          return n >= count ? n : 0;
        },
        { timeoutMs, intervalMs: 50, message: `${count} messages in the SMTP sink process` },
      );
    },
    async readLedger() {
      const text = await readFile(ledgerPath, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LedgerEntry);
    },
    stop,
  };
}
