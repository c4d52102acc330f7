/**
 * Routes are declared as data (`RouteSpec`) and mounted here in one pass, so their order in the
 * router does not depend on which module registered them first.
 *
 * Express tries routes in registration order and the first match answers. A parameterised path
 * (`/emails/:id`) registered before a fixed sibling (`/emails/receiving`) would answer for it, so
 * `mountRoutes` registers, segment by segment, a fixed segment before a parameter: every fixed
 * path comes before each parameterised path that could match it. Every path also answers the
 * methods it does not serve with 405 and an `Allow` header (RFC 9110 15.5.6).
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import { PetrelError } from '@petrel/contracts';

export type RouteMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteSpec {
  /** Express path: fixed segments and `:param` segments. */
  path: string;
  /** Handlers per method (middleware first, e.g. `[requireFullAccess, handler]`). */
  methods: Partial<Record<RouteMethod, RequestHandler | RequestHandler[]>>;
}

/** A segment that matches more than its own text: `:id`, `*rest`, `{optional}`. */
export const isParamSegment = (segment: string): boolean => /[:*{]/.test(segment);

/** `0` per fixed segment, `1` per parameter: sorting by it puts fixed segments first. */
function specificityKey(path: string): string {
  return path
    .split('/')
    .filter(Boolean)
    .map((s) => (isParamSegment(s) ? '1' : '0'))
    .join('');
}

/**
 * The routes in mounting order: grouped by path (one spec per path, methods merged), then a
 * stable sort that puts a fixed segment before a parameter at the first segment where two paths
 * differ in kind. Two paths whose keys tie keep their declaration order.
 */
export function orderRoutes(routes: readonly RouteSpec[]): RouteSpec[] {
  const byPath = new Map<string, RouteSpec>();
  for (const r of routes) {
    const seen = byPath.get(r.path);
    if (!seen) {
      byPath.set(r.path, { path: r.path, methods: { ...r.methods } });
      continue;
    }
    for (const m of Object.keys(r.methods) as RouteMethod[]) {
      if (seen.methods[m]) throw new Error(`route ${m.toUpperCase()} ${r.path} is declared twice`);
      seen.methods[m] = r.methods[m];
    }
  }
  return [...byPath.values()].sort((a, b) => {
    const ka = specificityKey(a.path);
    const kb = specificityKey(b.path);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/** Registers `routes` on `router` in the order of `orderRoutes`, each with its 405 fallback. */
export function mountRoutes(router: Router, routes: readonly RouteSpec[]): void {
  for (const spec of orderRoutes(routes)) {
    const route = router.route(spec.path);
    const methods = Object.keys(spec.methods) as RouteMethod[];
    for (const m of methods) {
      const handlers = spec.methods[m]!;
      route[m](...(Array.isArray(handlers) ? handlers : [handlers]));
    }
    const allow = methods.map((m) => m.toUpperCase()).join(', ');
    route.all((req, res) => {
      res.setHeader('Allow', allow);
      throw new PetrelError('method_not_allowed', `Method ${req.method} is not allowed on ${spec.path}`);
    });
  }
}

/** A `:name` segment of the matched path (Express types allow arrays for wildcards). */
export function pathParam(req: Request, name: string): string {
  const value = req.params[name];
  if (typeof value !== 'string') throw new Error(`the route has no :${name} segment`);
  return value;
}

/** The team the request's API key belongs to (set by the auth middleware before any route). */
export const teamOf = (res: Response): string => res.locals.auth.teamId as string;
