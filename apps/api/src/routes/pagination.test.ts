import { describe, expect, it } from 'vitest';
import { LIMITS } from '@petrel/contracts';
import { pageArray, parsePageQuery } from './pagination.js';

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
