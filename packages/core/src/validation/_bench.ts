import { validateEmail } from './validate-email.js';
const now = new Date('2026-11-21T10:00:00.000Z');
const typical = {
  from: 'Acme <onboarding@acme.example>',
  to: ['delivered@example.com'],
  subject: 'Your receipt #1234',
  html: '<p>Thanks for your order</p>',
  tags: [{ name: 'category', value: 'receipt' }],
  headers: { 'X-Entity-Ref-ID': 'abc-123' },
};
const sched = { ...typical, scheduled_at: '2026-11-22T10:00:00Z' };
const mode = process.argv[2];
const body = mode === 'sched' ? sched : typical;
const t = process.hrtime.bigint();
const n = 1_000_000;
for (let i = 0; i < n; i++) validateEmail(body, { now, context: 'single' });
console.log(mode, Number(process.hrtime.bigint() - t) / n, 'ns/op');
