import { describe, expect, it } from 'vitest';
import type { ConditionRule, ContactRecord } from '@petrel/contracts';
import { evaluateCondition, resolvePath, resolveValue, type RunContext } from './condition.js';

const contact: ContactRecord = {
  id: 'c1',
  email: 'ada@example.test',
  first_name: 'Ada',
  last_name: null,
  unsubscribed: false,
  properties: { plan: 'pro', seats: 5, company: '' },
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
const ctx: RunContext = {
  event: { plan: 'pro', amount: 42, count: '7', tags: ['a', 'b'], nested: { x: 1 }, empty: '', flag: true },
  contact,
  waitEvents: { 'order.paid': { total: 99, currency: 'EUR' } },
};
const rule = (field: string, operator: string, value?: unknown): ConditionRule =>
  ({ type: 'rule', field, operator, ...(value !== undefined ? { value } : {}) }) as ConditionRule;

describe('resolvePath', () => {
  it.each([
    ['event.plan', 'pro'],
    ['event.nested.x', 1],
    ['event.missing', undefined],
    ['event.plan.deeper', undefined],
    ['contact.first_name', 'Ada'],
    ['contact.email', 'ada@example.test'],
    ['contact.plan', 'pro'],
    ['contact.properties.seats', 5],
    ['contact.nope', undefined],
    ['wait_events.order.paid.total', 99],
    ['wait_events.order.paid', { total: 99, currency: 'EUR' }],
    ['wait_events.other.total', undefined],
    ['nothing', undefined],
    ['other.x', undefined],
  ])('%s → %j', (path, want) => {
    expect(resolvePath(path, ctx)).toEqual(want);
  });

  it('a deleted contact has no fields', () => {
    expect(resolvePath('contact.email', { ...ctx, contact: null })).toBeUndefined();
  });
});

describe('evaluateCondition', () => {
  it.each<[ConditionRule, boolean]>([
    [rule('event.plan', 'eq', 'pro'), true],
    [rule('event.plan', 'eq', 'free'), false],
    [rule('event.missing', 'eq', null), false],
    [rule('event.plan', 'neq', 'free'), true],
    [rule('event.missing', 'neq', 'x'), true],
    [rule('event.count', 'eq', 7), true],
    [rule('event.amount', 'eq', '42'), true],
    [rule('event.flag', 'eq', true), true],
    [rule('event.amount', 'gt', 41), true],
    [rule('event.amount', 'gt', 42), false],
    [rule('event.amount', 'gte', 42), true],
    [rule('event.amount', 'lt', 50), true],
    [rule('event.amount', 'lte', 41), false],
    [rule('event.count', 'gt', 5), true],
    [rule('event.plan', 'gt', 5), false],
    [rule('event.missing', 'lt', 5), false],
    [rule('event.plan', 'contains', 'r'), true],
    [rule('event.plan', 'contains', 'x'), false],
    [rule('event.tags', 'contains', 'b'), true],
    [rule('event.plan', 'starts_with', 'pr'), true],
    [rule('event.plan', 'ends_with', 'ro'), true],
    [rule('event.plan', 'ends_with', 'p'), false],
    [rule('event.amount', 'starts_with', '4'), true],
    [rule('event.missing', 'contains', 'a'), false],
    [rule('event.plan', 'exists'), true],
    [rule('event.missing', 'exists'), false],
    [rule('event.empty', 'is_empty'), true],
    [rule('event.missing', 'is_empty'), true],
    [rule('event.plan', 'is_empty'), false],
    [rule('contact.company', 'is_empty'), true],
    [rule('contact.seats', 'gte', 5), true],
    [rule('wait_events.order.paid.total', 'gt', 50), true],
    [{ type: 'and', rules: [rule('event.plan', 'eq', 'pro'), rule('event.amount', 'gt', 40)] }, true],
    [{ type: 'and', rules: [rule('event.plan', 'eq', 'pro'), rule('event.amount', 'gt', 50)] }, false],
    [{ type: 'or', rules: [rule('event.plan', 'eq', 'free'), rule('event.amount', 'gt', 40)] }, true],
    [{ type: 'or', rules: [rule('event.plan', 'eq', 'free'), rule('event.amount', 'gt', 50)] }, false],
    [
      {
        type: 'or',
        rules: [
          { type: 'and', rules: [rule('event.plan', 'eq', 'pro'), rule('contact.first_name', 'eq', 'Ada')] },
          rule('event.missing', 'exists'),
        ],
      },
      true,
    ],
  ])('%j → %s', (r, want) => {
    expect(evaluateCondition(r, ctx)).toBe(want);
  });
});

describe('resolveValue', () => {
  it('replaces a var and keeps plain values', () => {
    expect(resolveValue({ var: 'contact.first_name' }, ctx)).toBe('Ada');
    expect(resolveValue({ var: 'event.missing' }, ctx)).toBeUndefined();
    expect(resolveValue('plain', ctx)).toBe('plain');
    expect(resolveValue({ var: 'event.plan', other: 1 }, ctx)).toEqual({ var: 'event.plan', other: 1 });
  });
});
