// Inbound measurement of the `smtp` phase: messages/s received by the inbound (MX) server —
// SMTP_INBOUND_PORT of `apps/smtp/dist/main.js`, fed by a pooled nodemailer client acting as a
// sending MTA (CONNECTIONS connections, STARTTLS as MTAs do, one message in flight per
// connection) — each message parsed (postal-mime), stored (record, gzip raw, listing) and its
// email.received published, all before the 250 the client waits for. The message is a typical
// one: text and html, a 20 KiB attachment. Reported: received messages/s (median of the reps)
// and CPU per message of the SMTP process and of Redis; the count stored is checked.
//
// The sender domain is published in a local DNS server (SPF for 127.0.0.1, a DKIM key, DMARC
// p=none) and every message is DKIM-signed, so with INBOUND_AUTH=on (the default) each one costs
// what a real one does: SPF, DKIM verification, DMARC, ARC and BIMI lookups. The smtp phase's
// measurement runs it with INBOUND_AUTH=off too, for the checks' cost per message.
import { generateKeyPairSync } from 'node:crypto';
import { createTransport } from 'nodemailer';
import { startDnsServer } from '@petrel/testing';
import { cpuDelta, cpuSnapshot } from './cpu.mjs';
import { PETREL_PREFIX } from './stacks.mjs';
import { fmtInt, freePort, mapLimit, median, now, round } from './util.mjs';

const CONNECTIONS = 10;
const DOMAIN = 'in.bench.test';
const ATTACHMENT = Buffer.alloc(20 * 1024, 'petrel inbound bench ');
const SENDER_DOMAIN = 'example.test';
const DKIM_SELECTOR = 'bench';
const DKIM_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 });

/** A local DNS server with the sender domain's SPF, DKIM key and DMARC record. */
async function senderDns() {
  const dns = await startDnsServer();
  const txt = (name, value) => dns.add({ name, type: 'TXT', value });
  txt(SENDER_DOMAIN, 'v=spf1 ip4:127.0.0.1 -all');
  txt(`_dmarc.${SENDER_DOMAIN}`, 'v=DMARC1; p=none');
  const der = DKIM_KEY.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  txt(`${DKIM_SELECTOR}._domainkey.${SENDER_DOMAIN}`, `v=DKIM1; k=rsa; p=${der}`);
  return dns;
}

export const INBOUND_BENCH_DOMAIN = DOMAIN;

function message(i, to) {
  return {
    from: `Sender ${i} <sender${i}@${SENDER_DOMAIN}>`,
    to,
    subject: `Inbound ${i}`,
    text: `Hello, message ${i}.\n`.repeat(20),
    html: `<p>Hello, message <b>${i}</b>.</p>`.repeat(20),
    attachments: [{ filename: `file-${i}.bin`, content: ATTACHMENT }],
  };
}

/** Received emails stored for the default team (the only team of the bench's Redis). */
async function storedCount(redis) {
  const teams = await redis.smembers(`${PETREL_PREFIX}:teams`);
  let n = 0;
  for (const t of teams) n += await redis.zcard(`${PETREL_PREFIX}:{${t}}:inbound-emails`);
  return n;
}

/**
 * One measurement on a fresh Redis. `target.to` is the recipient (default `support@` the
 * receiving domain); `target.prepare(ctx)` runs once the SMTP process is up, before the warm-up
 * (the inboxes phase creates an inbox at the address there). `target.auth`: INBOUND_AUTH (`on`).
 */
export async function inboundRun(ctx, startSmtp, o, target = {}) {
  const to = target.to ?? `support@${DOMAIN}`;
  await ctx.redis.reset();
  const port = await freePort();
  const dns = await senderDns();
  const smtp = await startSmtp(ctx, {
    SMTP_INBOUND_PORT: String(port),
    INBOUND_DOMAINS: DOMAIN,
    INBOUND_AUTH: target.auth ?? 'on',
    DNS_SERVERS: dns.address,
  });
  const transport = createTransport({
    host: '127.0.0.1',
    port,
    pool: true,
    maxConnections: CONNECTIONS,
    maxMessages: Infinity,
    tls: { rejectUnauthorized: false },
    dkim: {
      domainName: SENDER_DOMAIN,
      keySelector: DKIM_SELECTOR,
      privateKey: DKIM_KEY.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    },
  });
  const send = async (i) => {
    const info = await transport.sendMail(message(i, to));
    if (!/^250 /.test(info.response)) throw new Error(`inbound refused: ${info.response}`);
  };
  try {
    await target.prepare?.(ctx);
    await mapLimit(o.warmup, CONNECTIONS, (i) => send(i));
    const a = await cpuSnapshot({ api: smtp.child.pid }, ctx.redis.client);
    const t0 = now();
    await mapLimit(o.n, CONNECTIONS, (i) => send(o.warmup + i));
    const secs = (now() - t0) / 1000;
    const cpu = cpuDelta(a, await cpuSnapshot({ api: smtp.child.pid }, ctx.redis.client));
    const stored = await storedCount(ctx.redis.client);
    if (stored !== o.warmup + o.n)
      throw new Error(`${stored} received emails stored, ${o.warmup + o.n} sent`);
    const perMessageMs = (pct) => (pct == null ? null : round(((pct / 100) * secs * 1000) / o.n, 3));
    return {
      messages: o.n,
      seconds: round(secs, 2),
      messages_per_s: round(o.n / secs, 0),
      stored,
      cpu,
      cpu_ms_per_message: { server: perMessageMs(cpu.api), redis: perMessageMs(cpu.redis) },
    };
  } finally {
    transport.close();
    await smtp.stop();
    await dns.stop();
  }
}

/** The measurement entry for SMTP_MEASUREMENTS (bench/phases/smtp.mjs); `startSmtp` starts the SMTP process. */
export function inboundMeasurement(startSmtp) {
  return {
    key: 'inbound',
    async run(ctx, o) {
      // each rep: the checks off, then on (the default), on the same machine load
      const runs = [];
      for (let rep = 0; rep < o.reps; rep++) {
        const off = await inboundRun(ctx, startSmtp, o, { auth: 'off' });
        const r = await inboundRun(ctx, startSmtp, o);
        runs.push({ ...r, off });
        ctx.progress(
          `  inbound   : ${fmtInt(r.messages_per_s)} messages/s received and stored (${fmtInt(r.messages)} in ${r.seconds} s); ` +
            `cpu/message: server ${r.cpu_ms_per_message.server} ms (INBOUND_AUTH=off: ${off.cpu_ms_per_message.server} ms, ` +
            `${fmtInt(off.messages_per_s)} messages/s), redis ${r.cpu_ms_per_message.redis} ms`,
        );
      }
      const m = median(runs.map((r) => r.messages_per_s));
      return { ...(runs.find((r) => r.messages_per_s === m) ?? runs[0]), runs };
    },
    rows(r, setup) {
      return [
        {
          phase: 'smtp',
          metric: `inbound messages/s parsed and stored (MX port, STARTTLS, ${CONNECTIONS} pooled connections, ~${Math.round(ATTACHMENT.length / 1024) + 3} KiB messages with an attachment, ${fmtInt(setup.n)} messages; email.received published; SPF, DKIM, DMARC, ARC, BIMI checked); cpu ms/message SMTP ${r.cpu_ms_per_message.server} (INBOUND_AUTH=off ${r.off.cpu_ms_per_message.server}, ${fmtInt(r.off.messages_per_s)} messages/s), Redis ${r.cpu_ms_per_message.redis}`,
          petrel: fmtInt(r.messages_per_s),
          baseline: '',
          ratio: null,
          target: '',
          cpu_petrel: r.cpu,
        },
      ];
    },
  };
}
