import { describe, expect, it } from 'vitest';
import { LIMITS } from '@petrel/contracts';
import { listBody, pageArray, parsePageQuery, queryParam } from './pagination.js';

const q = (query: Record<string, unknown>) => ({ query }) as never;

describe('parsePageQuery', () => {
  it('defaults the limit and takes one cursor', () => {
    expect(parsePageQuery(q({}))).toEqual({ limit: LIMITS.paginationDefault });
    expect(parsePageQuery(q({ limit: '5', after: 'x' }))).toEqual({ limit: 5, after: 'x' });
  });

  it.each([
    [{ limit: '0' }, /^limit: /],
    [{ limit: String(LIMITS.paginationMax + 1) }, /^limit: /],
    [{ limit: '1.5' }, /^limit: /],
    [{ after: ['a', 'b'] }, /^after: must be given once/],
    [{ after: 'a', before: 'b' }, /^after, before: /],
  ])('refuses %j', (query, message) => {
    expect(() => parsePageQuery(q(query))).toThrow(message);
  });
});

describe('pageArray', () => {
  const items = ['a', 'b', 'c', 'd', 'e'].map((id) => ({ id }));
  const ids = (r: { data: { id: string }[]; has_more: boolean }) => [
    r.data.map((x) => x.id).join(''),
    r.has_more,
  ];

  it('pages forward with after and backward with before', () => {
    expect(ids(pageArray(items, { limit: 2 }))).toEqual(['ab', true]);
    expect(ids(pageArray(items, { limit: 2, after: 'b' }))).toEqual(['cd', true]);
    expect(ids(pageArray(items, { limit: 2, after: 'c' }))).toEqual(['de', false]);
    expect(ids(pageArray(items, { limit: 2, before: 'e' }))).toEqual(['cd', true]);
    expect(ids(pageArray(items, { limit: 2, before: 'c' }))).toEqual(['ab', false]);
  });

  it('refuses an unknown cursor', () => {
    expect(() => pageArray(items, { limit: 2, after: 'z' })).toThrow('after: no such item');
  });
});

describe('queryParam', () => {
  it('reads a value given once, and nothing when absent', () => {
    expect(queryParam(q({ status: 'sent' }), 'status')).toBe('sent');
    expect(queryParam(q({}), 'status')).toBeUndefined();
  });

  it.each([[['a', 'b']], [{ x: '1' }]])('refuses %j, naming the parameter', (value) => {
    expect(() => queryParam(q({ status: value }), 'status')).toThrow(
      'status: must be given once, as a string',
    );
  });
});

describe('listBody', () => {
  it("answers a store's page as Resend's list object, each item mapped", () => {
    const page = { items: [{ id: 'a' }, { id: 'b' }], hasMore: true };
    expect(listBody(page, { limit: 2 }, 'thing', (x) => x.id.toUpperCase())).toEqual({
      object: 'list',
      has_more: true,
      data: ['A', 'B'],
    });
    expect(listBody(page, { limit: 2 }, 'thing').data).toEqual(page.items);
  });

  it('refuses the cursor a store found nothing for, naming it', () => {
    expect(() => listBody(null, { limit: 2, after: 'z' }, 'thing')).toThrow('after: no such thing');
    expect(() => listBody(null, { limit: 2, before: 'z' }, 'thing')).toThrow('before: no such thing');
  });
});
