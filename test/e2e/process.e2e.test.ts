/**
 * The real `npm start` process (apps/petrel/dist/main.js, built by the test command): embedded
 * redis-server start/stop, the first API key printed once, capture SMTP, health/ready/metrics,
 * and graceful shutdown on SIGTERM with requests in flight — nothing accepted is lost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { freePort, pingRedis, waitUntil } from '@petrel/testing';

const MAIN = resolve(__dirname, '../../apps/petrel/dist/main.js');
const dataDir = mkdtempSync(join(tmpdir(), 'petrel-process-'));
let ports: { api: number; metrics: number; redis: number; smtp: number };

interface Running {
  child: ChildProcess;
  stdout: () => string;
  exited: Promise<number | null>;
}

/** The captured messages (the capture server writes each under a hidden name, then renames it). */
const emlFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.eml'));

/** Every process started, so a failing test leaves none behind holding its ports. */
const started: ChildProcess[] = [];

async function startPetrel(): Promise<Running> {
  let out = '';
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      PORT: String(ports.api),
      METRICS_PORT: String(ports.metrics),
      EMBEDDED_REDIS_PORT: String(ports.redis),
      CAPTURE_SMTP_PORT: String(ports.smtp),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  await waitUntil(() => out.includes('Petrel is running') || child.exitCode !== null, { timeoutMs: 30_000 });
  if (child.exitCode !== null) throw new Error(`petrel exited early:\n${out}`);
  return { child, stdout: () => out, exited };
}

afterAll(() => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm start (all-in-one process)', () => {
  it('starts an embedded redis, prints the first key once, captures mail, and stops everything on SIGTERM', async () => {
    expect(existsSync(MAIN), 'run `npm run build` first').toBe(true);
    ports = {
      api: await freePort(),
      metrics: await freePort(),
      redis: await freePort(),
      smtp: await freePort(),
    };

    const first = await startPetrel();
    const key = /^\s+(re_\S+)\s*$/m.exec(first.stdout())?.[1];
    expect(key, first.stdout()).toBeDefined();
    expect(first.stdout()).toContain(`new Resend('${key}', { baseUrl: 'http://localhost:${ports.api}' })`);
    expect(await pingRedis('127.0.0.1', ports.redis)).toBe(true);

    const resend = new Resend(key!, { baseUrl: `http://127.0.0.1:${ports.api}` });
    const sent = await resend.emails.send({
      from: 'Dev <dev@acme.test>',
      to: 'me@example.test',
      subject: 'Captured',
      html: '<p>hello</p>',
    });
    expect(sent.error).toBeNull();
    const mailDir = join(dataDir, 'mail');
    await waitUntil(() => existsSync(mailDir) && emlFiles(mailDir).length === 1, { timeoutMs: 15_000 });
    const eml = readFileSync(join(mailDir, emlFiles(mailDir)[0]!), 'utf8');
    expect(eml).toContain(`Message-ID: <${sent.data!.id}@acme.test>`);
    expect(eml).toContain('Subject: Captured');

    for (const path of ['/health', '/ready']) {
      expect((await fetch(`http://127.0.0.1:${ports.metrics}${path}`)).status).toBe(200);
    }
    expect((await fetch(`http://127.0.0.1:${ports.api}/health`)).status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();
    expect(metrics).toContain('petrel_emails_accepted_total{endpoint="single",app="petrel"} 1');
    expect(metrics).toContain('petrel_accept_to_delivered_seconds_count');

    // Graceful shutdown with batches in flight: every 200 is durable.
    const inflight = Array.from({ length: 20 }, (_, b) =>
      resend.batch.send(
        Array.from({ length: 50 }, (_, i) => ({
          from: 'a@acme.test',
          to: `b${b}-${i}@example.test`,
          subject: 's',
          html: 'x',
        })),
      ),
    );
    // SIGTERM as soon as the API has answered one of them: it is taking these batches, and the
    // others are on their way or being processed
    await Promise.race(inflight);
    first.child.kill('SIGTERM');
    const results = await Promise.all(inflight);
    expect(await first.exited, first.stdout().slice(-3000)).toBe(0);
    expect(await pingRedis('127.0.0.1', ports.redis, 300)).toBe(false); // embedded redis stopped with it
    const acceptedIds = results.flatMap((r) => r.data?.data.map((d) => d.id) ?? []);
    expect(acceptedIds.length).toBeGreaterThanOrEqual(50);

    // Second start: the key exists, so none is printed; all accepted emails get delivered.
    const second = await startPetrel();
    expect(second.stdout()).not.toContain('Petrel created your first API key');
    const wanted = new Set(acceptedIds.map((id) => `<${id}@acme.test>`));
    await waitUntil(
      () => {
        const seen = emlFiles(mailDir).map(
          (f) => /Message-ID: (<[^>]+>)/i.exec(readFileSync(join(mailDir, f), 'utf8'))?.[1],
        );
        return [...wanted].every((id) => seen.includes(id));
      },
      { timeoutMs: 60_000, message: 'an accepted email was lost across the restart' },
    );
    second.child.kill('SIGTERM');
    expect(await second.exited, second.stdout().slice(-3000)).toBe(0);
    expect(await pingRedis('127.0.0.1', ports.redis, 300)).toBe(false);
  }, 180_000);
});
