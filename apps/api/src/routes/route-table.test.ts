import { describe, expect, it } from 'vitest';
import type { RequestHandler } from 'express';
import { isParamSegment, orderRoutes, type RouteSpec } from './route-table.js';

const h: RequestHandler = (_req, res) => {
  res.end();
};
const spec = (path: string, ...methods: (keyof RouteSpec['methods'])[]): RouteSpec => ({
  path,
  methods: Object.fromEntries(methods.map((m) => [m, h])),
});
const paths = (routes: RouteSpec[]) => orderRoutes(routes).map((r) => r.path);

describe('orderRoutes', () => {
  it('puts a fixed sibling before the parameter that would match it, whatever the declaration order', () => {
    expect(
      paths([spec('/emails/:id', 'get'), spec('/emails/receiving', 'get'), spec('/emails', 'get')]),
    ).toEqual(['/emails', '/emails/receiving', '/emails/:id']);
    expect(
      paths([
        spec('/emails/:id/cancel', 'post'),
        spec('/emails/:id/:action', 'post'),
        spec('/emails/batch/x', 'post'),
      ]),
    ).toEqual(['/emails/batch/x', '/emails/:id/cancel', '/emails/:id/:action']);
  });

  it('decides at the first segment that differs in kind (the more specific prefix first)', () => {
    expect(paths([spec('/a/:x/c', 'get'), spec('/a/b/:y', 'get')])).toEqual(['/a/b/:y', '/a/:x/c']);
  });

  it('keeps the declaration order of paths of the same shape', () => {
    expect(paths([spec('/templates', 'get'), spec('/emails', 'get'), spec('/api-keys', 'get')])).toEqual([
      '/templates',
      '/emails',
      '/api-keys',
    ]);
  });

  it('merges the methods of one path declared twice, and refuses one method declared twice', () => {
    expect(orderRoutes([spec('/x', 'get'), spec('/x', 'post')])).toEqual([
      { path: '/x', methods: { get: h, post: h } },
    ]);
    expect(() => orderRoutes([spec('/x', 'get'), spec('/x', 'get')])).toThrow(
      'route GET /x is declared twice',
    );
  });

  it('knows which segments are parameters', () => {
    expect(['users', ':id', '*rest', '{:opt}', 'batch'].map(isParamSegment)).toEqual([
      false,
      true,
      true,
      true,
      false,
    ]);
  });
});
