import { it } from 'vitest';
import { parseAddress } from './address.js';
import { readHeaders, readTags, readAddressList, readHeaderText } from './fields.js';
import { parseScheduledAt } from './scheduled-at.js';
import { validateEmail } from './validate-email.js';

function time(label: string, n: number, fn: () => unknown) {
  for (let i = 0; i < 20_000; i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  const ns = Number(process.hrtime.bigint() - t) / n;
  console.log(`${label}: ${(ns / 1000).toFixed(3)} µs/op`);
}
const now = new Date('2026-11-21T10:00:00.000Z');
it('parts', () => {
  time('parseAddress bare', 500_000, () => parseAddress('delivered@example.com'));
  time('parseAddress named', 500_000, () => parseAddress('Acme <onboarding@acme.example>'));
  time('readAddressList', 500_000, () => readAddressList(['delivered@example.com'], 'to', 1, 50));
  time('readHeaders', 500_000, () => readHeaders({ 'X-Entity-Ref-ID': 'abc-123' }, 'headers'));
  time('readTags', 500_000, () => readTags([{ name: 'category', value: 'receipt' }], 'tags'));
  time('readHeaderText', 500_000, () => readHeaderText('Your receipt #1234', 'subject'));
  time('parseScheduledAt iso', 500_000, () => parseScheduledAt('2026-11-22T10:00:00Z', now));
  time('minimal email', 500_000, () => validateEmail({ from: 'a@b.co', to: 'c@d.co', subject: 's' }, { now, context: 'single' }));
});
