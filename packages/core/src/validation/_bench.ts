
import { z } from 'zod';
import { validateEmail } from './validate-email.js';
import { validateBatch } from './validate-batch.js';

const now = new Date('2026-11-21T10:00:00.000Z');
const typical = {
  from: 'Acme <onboarding@acme.example>',
  to: ['delivered@example.com'],
  subject: 'Your receipt #1234',
  html: '<p>Thanks for your order</p>',
  tags: [{ name: 'category', value: 'receipt' }],
  headers: { 'X-Entity-Ref-ID': 'abc-123' },
};
const rich = { ...typical, to: Array.from({ length: 10 }, (_, i) => `Person ${i} <p${i}@example.com>`), cc: ['c@example.com'], reply_to: 'support@acme.example', text: 'Thanks', topic_id: 'topic-1' };
const tpl = { to: 'jane@example.com', template: { id: 'welcome', variables: { NAME: 'Jane', COUNT: 3 } } };

const addr = z.string().regex(/^(?:[^<>"\r\n]*<)?[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}>?$/);
const list = z.union([addr, z.array(addr).min(1).max(50)]);
const tag = z.string().min(1).max(256).regex(/^[A-Za-z0-9_-]+$/);
const zodEmail = z.strictObject({
  from: addr,
  to: list,
  subject: z.string().min(1).regex(/^[^\r\n\u0000\u2028\u2029]*$/),
  cc: list.optional(), bcc: list.optional(), reply_to: list.optional(),
  html: z.string().optional(), text: z.string().optional(),
  headers: z.record(z.string().regex(/^[\x21-\x39\x3b-\x7e]+$/), z.string().regex(/^[^\r\n\u0000]*$/)).optional(),
  tags: z.array(z.strictObject({ name: tag, value: tag })).optional(),
  topic_id: z.string().min(1).max(256).nullable().optional(),
});

function time(label: string, n: number, fn: () => unknown) {
  for (let i = 0; i < 20_000; i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  const ns = Number(process.hrtime.bigint() - t) / n;
  console.log(`${label}: ${(ns / 1000).toFixed(3)} µs/op`);
}

export function run() {
  time('hand-written typical', 500_000, () => validateEmail(typical, { now, context: 'single' }));
  time('hand-written rich (10 named to)', 200_000, () => validateEmail(rich, { now, context: 'single' }));
  time('hand-written template', 500_000, () => validateEmail(tpl, { now, context: 'single' }));
  time('hand-written invalid (CRLF subject)', 500_000, () => validateEmail({ ...typical, subject: 'a\r\nb' }, { now, context: 'single' }));
  time('zod (approx. same rules) typical', 500_000, () => zodEmail.safeParse(typical));
  time('zod (approx. same rules) rich', 200_000, () => zodEmail.safeParse(rich));
  time('zod invalid (CRLF subject)', 200_000, () => zodEmail.safeParse({ ...typical, subject: 'a\r\nb' }));
  const batch = Array.from({ length: 100 }, () => typical);
  time('validateBatch 100 typical', 5_000, () => validateBatch(batch, { mode: 'strict', now }));
  time('scheduled_at "in 1 hour" (single)', 20_000, () => validateEmail({ ...typical, scheduled_at: 'in 1 hour' }, { now, context: 'single' }));
  time('scheduled_at ISO (single)', 200_000, () => validateEmail({ ...typical, scheduled_at: '2026-11-22T10:00:00Z' }, { now, context: 'single' }));
  const big = 'A'.repeat(40 * 1024 * 1024 / 3 * 4 - 4);
  time('40 MB attachment base64 check', 5, () => validateEmail({ ...typical, attachments: [{ content: big }] }, { now, context: 'single' }));
}
run();
