// Compose-only benchmark: Petrel's lean MIME builder vs nodemailer's MailComposer on ~2 KB html
// emails (nodemailer's compose path managed ~2.7k/s on the bench machine).
// No network. Run after building the package:
//   npx tsc -b packages/mailer && node packages/mailer/bench-compose.mjs [messages] [rounds]
import MailComposer from 'nodemailer/lib/mail-composer';
import { buildMessage } from './dist/index.js';

const N = Number(process.argv[2] ?? 20_000);
const ROUNDS = Number(process.argv[3] ?? 5);

/** A ~2 KB transactional html email, personalised per message so no cache can help. */
function html(i) {
  const rows = Array.from(
    { length: 8 },
    (_, k) =>
      `<tr><td style="padding:4px 8px">Item ${k + 1}</td><td align="right">€${(k * 7.5 + (i % 13)).toFixed(2)}</td></tr>`,
  ).join('\n');
  return `<!doctype html><html><body style="font-family:Arial,sans-serif;color:#222">
<h1 style="font-size:20px">Your order #${100000 + i} is confirmed</h1>
<p>Hi Zoë,</p><p>Thanks for shopping with Acme. We'll let you know as soon as your parcel ships.
You can follow its progress at any time from <a href="https://acme.example/orders/${100000 + i}">your account</a>.</p>
<table cellpadding="0" cellspacing="0" style="border-collapse:collapse;width:100%">
${rows}
</table>
<p style="font-size:12px;color:#888">Acme Ltd · 1 Example Street · Questions? Reply to this email or visit
<a href="https://acme.example/help">our help centre</a>. You received this because you placed an order.</p>
</body></html>`;
}
function text(i) {
  return `Your order #${100000 + i} is confirmed.\n\nHi Zoë,\n\nThanks for shopping with Acme. We'll let you know as soon as your parcel ships.\nhttps://acme.example/orders/${100000 + i}\n`;
}

const common = {
  from: 'Acme Store <orders@acme.example>',
  to: ['Zoë Müller <zoe@example.com>'],
  subject: (i) => `Your order #${100000 + i} is confirmed ✓`,
};

function petrel(i, withText, sameHtml) {
  const k = sameHtml ? 0 : i;
  return buildMessage({
    emailId: `0190a1b2-c3d4-7e5f-8a9b-${String(i).padStart(12, '0')}`,
    messageIdDomain: 'acme.example',
    date: new Date(),
    from: common.from,
    to: common.to,
    cc: [],
    bcc: [],
    reply_to: [],
    subject: common.subject(k),
    html: html(k),
    ...(withText ? { text: text(k) } : {}),
    headers: { 'X-Entity-Ref-ID': String(i) },
    attachments: [],
  }).raw;
}

function nodemailer(i, withText) {
  return new MailComposer({
    from: common.from,
    to: common.to,
    subject: common.subject(i),
    html: html(i),
    ...(withText ? { text: text(i) } : {}),
    headers: { 'X-Entity-Ref-ID': String(i) },
    messageId: `<0190a1b2-c3d4-7e5f-8a9b-${String(i).padStart(12, '0')}@acme.example>`,
  })
    .compile()
    .build();
}

async function rate(fn) {
  const results = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    let bytes = 0;
    for (let i = 0; i < N; i++) bytes += (await fn(i)).length;
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    results.push({ perSec: N / s, bytes: bytes / N });
  }
  results.sort((a, b) => a.perSec - b.perSec);
  return results[Math.floor(results.length / 2)];
}

const cases = [
  ['nodemailer MailComposer, html + text', (i) => nodemailer(i, true)],
  ['petrel buildMessage,     html + text', (i) => petrel(i, true, false)],
  ['nodemailer MailComposer, html only (no text part)', (i) => nodemailer(i, false)],
  ['petrel buildMessage,     html only (text generated from html)', (i) => petrel(i, false, false)],
  [
    'petrel buildMessage,     html only, same html every time (broadcast: cached)',
    (i) => petrel(i, false, true),
  ],
];

// warm up every path so the JIT has seen them all before measuring
for (const [, fn] of cases) for (let i = 0; i < 2000; i++) await fn(i);

console.log(`node ${process.version}, ${N} messages × ${ROUNDS} rounds, median shown`);
const out = {};
for (const [name, fn] of cases) {
  const { perSec, bytes } = await rate(fn);
  out[name] = perSec;
  console.log(
    `${name.padEnd(80)} ${Math.round(perSec).toLocaleString('en').padStart(8)} msg/s  (${Math.round(bytes)} B/msg)`,
  );
}
const [nmText, pText, nmHtml, pHtml] = Object.values(out);
console.log(
  `speed-up, html + text: ${(pText / nmText).toFixed(1)}×; html only: ${(pHtml / nmHtml).toFixed(1)}×`,
);
