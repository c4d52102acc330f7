import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { startSmtpSinkProcess } from './smtp-sink-process.js';
import { stopAfterEach } from './stop-after-each.js';

const sinkProcess = stopAfterEach(startSmtpSinkProcess);

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startSmtpSinkProcess', () => {
  it('counts messages, reports Message-IDs and writes the ledger from a child process', async () => {
    const sink = await sinkProcess({ plan: { 'hard.test': [{ at: 'rcpt', code: 550 }] } });
    expect(sink.pid).not.toBe(process.pid);
    const transport = nodemailer.createTransport({ url: sink.url, ignoreTLS: true, pool: true });
    const sent = [];
    for (let i = 0; i < 5; i += 1) {
      sent.push(
        await transport.sendMail({
          from: 'a@petrel.test',
          to: `r${i}@example.test`,
          subject: `m${i}`,
          text: 'x'.repeat(100),
        }),
      );
    }
    await expect(
      transport.sendMail({ from: 'a@petrel.test', to: 'x@hard.test', text: 'no' }),
    ).rejects.toMatchObject({ responseCode: 550 });
    transport.close();

    expect(await sink.waitFor(5)).toBe(5);
    expect(await sink.count()).toBe(5);
    expect(await sink.messageIds()).toEqual(sent.map((info) => info.messageId));
    expect(await sink.attemptsFor('x@hard.test')).toBe(1);

    const ledger = await sink.readLedger();
    expect(ledger.map((e) => e.messageId)).toEqual(sent.map((info) => info.messageId));
    expect(ledger[0]).toMatchObject({
      to: ['r0@example.test'],
      bytes: expect.any(Number),
      receivedAt: expect.any(Number),
    });

    await sink.clear();
    expect(await sink.count()).toBe(0);
  });

  it('keeps a caller-given ledger and leaves no process behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petrel-sink-test-'));
    const ledger = join(dir, 'sink.jsonl');
    const sink = await startSmtpSinkProcess({ ledger });
    await nodemailer
      .createTransport({ url: sink.url, ignoreTLS: true })
      .sendMail({ from: 'a@petrel.test', to: 'b@example.test', text: 'x' });
    await sink.stop();
    expect(alive(sink.pid)).toBe(false);
    expect(existsSync(ledger)).toBe(true);
    expect((await sink.readLedger()).length).toBe(1);
    await expect(sink.count()).rejects.toThrow(/not running/);
    await rm(dir, { recursive: true, force: true });
  });
});
