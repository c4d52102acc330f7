#!/usr/bin/env node
// SMTP sink in its own process, so that receiving (and recording) mail does not take CPU from
// the workers under test. Started by startSmtpSinkProcess() (src/smtp-sink-process.ts) over an
// IPC channel, or by hand: `node packages/testing/bin/smtp-sink.mjs --port 2525 --ledger l.jsonl`.
//
// For every accepted message it appends one JSONL line {messageId, to, bytes, receivedAt} to the
// ledger, synchronously and before it replies 250: a message the sender saw accepted is always in
// the ledger. It never parses MIME (a Message-ID header scan only). It exits when its parent goes.
import { closeSync, openSync, writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { extractMessageId, startSinkServer } from './sink-core.mjs';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    host: { type: 'string', default: '127.0.0.1' },
    ledger: { type: 'string' },
    plan: { type: 'string' },
    'reply-delay-ms': { type: 'string', default: '0' },
  },
});

const ledgerFd = values.ledger ? openSync(values.ledger, 'a') : undefined;
/** @type {string[]} */
const messageIds = [];

const sink = await startSinkServer({
  port: Number(values.port),
  host: values.host,
  plan: values.plan ? JSON.parse(values.plan) : undefined,
  replyDelayMs: Number(values['reply-delay-ms']),
  onMessage(raw, envelope) {
    const messageId = extractMessageId(raw);
    const entry = { messageId, to: envelope.to, bytes: raw.length, receivedAt: Date.now() };
    if (ledgerFd !== undefined) writeSync(ledgerFd, `${JSON.stringify(entry)}\n`);
    messageIds.push(messageId);
  },
});

let stopping;
function stop() {
  stopping ??= sink.stop().then(() => {
    if (ledgerFd !== undefined) closeSync(ledgerFd);
  });
  return stopping;
}

const ops = {
  count: () => messageIds.length,
  messageIds: () => messageIds,
  attemptsFor: (address) => sink.book.attemptsFor(String(address)),
  attempts: () => sink.book.log,
  rejectConnections: (n, reply) => sink.book.rejectConnections(Number(n), reply ?? {}),
  clear: () => {
    messageIds.length = 0;
    sink.book.reset();
  },
  stop,
};

if (process.send) {
  process.on('message', async (msg) => {
    const { id, op, args = [] } = msg ?? {};
    try {
      const fn = ops[op];
      if (!fn) throw new Error(`unknown sink op ${op}`);
      const result = await fn(...args);
      process.send?.({ id, ok: true, result }, () => {
        if (op === 'stop') process.disconnect();
      });
    } catch (err) {
      process.send?.({ id, ok: false, error: String(err?.message ?? err) });
    }
  });
  // The parent died or let go of us (even by SIGKILL): nobody can read our results any more.
  process.on('disconnect', () => void stop().then(() => process.exit(0)));
  process.send({ ready: true, port: sink.port });
} else {
  console.log(`smtp sink listening on smtp://${values.host}:${sink.port}`);
}

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => void stop().then(() => process.exit(0)));
}
