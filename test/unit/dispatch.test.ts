// api/http/dispatch.ts must answer exactly as one @koa/router over all routes does (the route that
// runs, 404, 405 with Allow, 501, OPTIONS), for the app's real route table and odd paths.
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import Koa, { type Context, type Middleware } from 'koa';
import Router from '@koa/router';
import { allRoutes } from '../../api/routes';
import { dispatchBySegments, groupKey, type Mounted } from '../../platform/http/dispatch';
import { loadConfig } from '../../app/config';
import { createLogger } from '../../platform/logger';

/** The route registry as the app builds it (construction touches no database or Temporal). */
function routePaths(): { method: Mounted['method']; path: string }[] {
  const config = loadConfig({ DATABASE_URL: 'postgres://dispatch-test@localhost/none' } as NodeJS.ProcessEnv);
  const defs = allRoutes({
    config,
    orm: {},
    log: createLogger('silent', 'dispatch-test'),
    temporal: {},
    messaging: {},
    readiness: {},
  } as never);
  return defs.map((d) => ({ method: d.method.toLowerCase() as Mounted['method'], path: d.path }));
}

// Answers which route ran (its index) and its params; errors (405, 501) as status + Allow header.
function appWith(use: (mounted: Mounted[]) => Middleware, table: { method: Mounted['method']; path: string }[]) {
  const mounted = table.map((r, i) => ({
    ...r,
    handler: (ctx: Context) => {
      ctx.body = { route: i, params: ctx.params };
    },
  }));
  const app = new Koa();
  const middleware = use(mounted);
  // In process (no sockets): a Koa context over a bare request, run through the middleware.
  return async (method: string, url: string): Promise<string> => {
    const req = new IncomingMessage(new Socket());
    req.method = method;
    req.url = url;
    const ctx = app.createContext(req, new ServerResponse(req));
    try {
      await middleware(ctx, async () => undefined);
    } catch (err) {
      const e = err as { status?: number; headers?: Record<string, string> };
      return `${e.status} ${e.headers?.Allow ?? ''}`;
    }
    return `${ctx.status} ${ctx.response.get('Allow')} ${JSON.stringify(ctx.body ?? null)}`;
  };
}

const single = (mounted: Mounted[]): Middleware => {
  const router = new Router();
  for (const r of mounted) router[r.method](r.path, r.handler);
  const routes = router.routes() as unknown as Middleware;
  const allowed = router.allowedMethods({ throw: true }) as unknown as Middleware;
  return (ctx, next) => routes(ctx, () => allowed(ctx, next));
};

describe('dispatch by first path segments', () => {
  it('keys paths by their first three literal segments', () => {
    expect(groupKey('/api/v1/companies/abc')).toBe('api/v1/companies');
    expect(groupKey('/API/v1/Companies/')).toBe('api/v1/companies');
    expect(groupKey('/healthz/')).toBe('healthz');
    expect(groupKey('/api/v1/:slug/records')).toBeUndefined();
    expect(groupKey('/api//v1/companies')).toBeUndefined();
    expect(groupKey('/api/v1/%63ompanies')).toBeUndefined();
    expect(groupKey('/')).toBeUndefined();
  });

  it('answers every request as a single router over the real routes does', async () => {
    const table = routePaths();
    expect(table.length).toBeGreaterThan(100);
    const [a, b] = [appWith(single, table), appWith(dispatchBySegments, table)];
    const fill = (p: string): string => p.replace(/:(\w+)/g, (_m, name: string) => `v-${name}`);
    const paths = new Set<string>([
      '*',
      '/',
      '/api',
      '/api/v1',
      '/api/v1/',
      '/nope',
      '/api/v1/nope/x',
      '/api//v1/companies',
    ]);
    for (const { path } of table) {
      const p = fill(path);
      paths.add(p);
      paths.add(`${p}/`);
      paths.add(p.toUpperCase());
      paths.add(`${p}/extra`);
      paths.add(p.replace(/\/[^/]+$/, '') || '/');
      paths.add(p.replace(/^\/api\/v1\/([a-z])/, (_m, c: string) => `/api/v1/%${c.charCodeAt(0).toString(16)}`));
      paths.add(p.replace(/s\b/, 'ſ'));
    }
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND'];
    const mismatches: string[] = [];
    let matched = 0;
    for (const path of paths) {
      for (const method of methods) {
        const [x, y] = [await a(method, path), await b(method, path)];
        if (x !== y) mismatches.push(`${method} ${path}: ${x} vs ${y}`);
        if (x.startsWith('200')) matched += 1;
      }
    }
    expect(mismatches).toEqual([]);
    // The comparison covered real matches, 405s and 404s, not only misses.
    expect(matched).toBeGreaterThan(table.length);
  });
});
