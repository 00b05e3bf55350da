import Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';

// @koa/router tests every route's pattern in turn (~250 routes, each with a debug() call): a few
// percent of a cheap request's CPU. Routes are grouped by their first path segments instead, and
// a request goes only through the router of its group. A group holds every route that could match
// a path with those segments (its own routes plus those with a parameter among their first
// segments), in the original order, so the match, its priority and the 404/405/501 answers are
// the ones a single router over all routes gives; any other path goes through that single router.

const DEPTH = 3;
/** Characters of a plain literal segment (lowercased); anything else is left to path-to-regexp. */
const LITERAL = /^[a-z0-9._~-]+$/;

export interface Mounted {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  handler: Middleware;
}

/** The group key of a path: its first DEPTH segments, lowercased, if all of them are plain literals. */
export function groupKey(path: string): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) return undefined;
  const segments: string[] = [];
  let start = 1;
  while (segments.length < DEPTH && start <= path.length) {
    let end = path.indexOf('/', start);
    if (end === -1) end = path.length;
    if (end === start && end < path.length) return undefined; // an empty segment: '//'
    if (end > start) {
      const segment = path.slice(start, end).toLowerCase();
      if (!LITERAL.test(segment)) return undefined;
      segments.push(segment);
    }
    start = end + 1;
  }
  return segments.length ? segments.join('/') : undefined;
}

const routerOf = (routes: Mounted[]): Middleware => {
  const router = new Router();
  for (const r of routes) router[r.method](r.path, r.handler);
  const match = router.routes() as unknown as Middleware;
  const allowed = router.allowedMethods({ throw: true }) as unknown as Middleware;
  return (ctx: Context, next: Next) => match(ctx, () => allowed(ctx, next));
};

/**
 * One middleware that answers like `router.routes()` followed by `router.allowedMethods({ throw:
 * true })` over all `routes`, dispatching on the path's first segments.
 */
export function dispatchBySegments(routes: Mounted[]): Middleware {
  const all = routerOf(routes);
  // A route's key: its literal first segments; one with a parameter (or pattern) among them belongs to every group.
  const keyed = routes.map((r) => ({ r, key: r.path.startsWith('/') ? groupKey(r.path) : undefined }));
  const keys = new Set(keyed.flatMap(({ key }) => (key === undefined ? [] : [key])));
  const groups = new Map<string, Middleware>();
  for (const key of keys)
    groups.set(key, routerOf(keyed.filter(({ key: k }) => k === key || k === undefined).map(({ r }) => r)));
  return (ctx: Context, next: Next) => {
    const key = groupKey(ctx.path);
    const group = key === undefined ? undefined : groups.get(key);
    return (group ?? all)(ctx, next);
  };
}
