import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { AppConfig } from '../domain/config';
import { DomainError } from '../domain/errors';
import { newId } from '../domain/ids';
import type { Logger } from '../domain/logger';
import { forkForWorkspace } from '../domain/orm/tenant';
import { authorize } from './http/auth';
import { errorMiddleware, formatZodError } from './http/errors';
import { isPublic, type RouteDef } from './http/registry';

export interface AppDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** Temporal client (lazy connection): automation runs, cancels, schedules. */
  temporal: Client;
  /** Named readiness probes for /readyz (postgres, temporal, meilisearch). */
  readiness: Record<string, () => Promise<void>>;
}

export type RouteFactory = (deps: AppDeps) => RouteDef[];

const REQUEST_ID_RE = /^[\w.-]{1,64}$/;

async function requestContext(ctx: Context, next: Next, log: Logger): Promise<void> {
  const incoming = ctx.get('x-request-id');
  const requestId = REQUEST_ID_RE.test(incoming) ? incoming : newId();
  ctx.state.requestId = requestId;
  ctx.state.log = log;
  ctx.set('X-Request-Id', requestId);
  const started = process.hrtime.bigint();
  try {
    await next();
  } finally {
    // Path only: the query string may carry api_key.
    log.info(
      { requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Number(process.hrtime.bigint() - started) / 1e6, workspaceId: ctx.state.workspaceId },
      'request',
    );
  }
}

function queryForValidation(ctx: Context, def: RouteDef): Record<string, unknown> {
  const { api_key: _key, ...rest } = ctx.query as Record<string, unknown>;
  if (def.previewable) delete rest.preview;
  return rest;
}

function takePreview(ctx: Context, def: RouteDef): boolean {
  if (!def.previewable) return false;
  const body = ctx.request.body as Record<string, unknown> | undefined;
  let preview = ctx.query.preview === 'true' || ctx.query.preview === '1';
  if (body && typeof body === 'object' && !Array.isArray(body) && 'preview' in body) {
    preview ||= body.preview === true || body.preview === 'true';
    delete body.preview;
  }
  return preview;
}

function mount(router: Router, def: RouteDef, deps: AppDeps): void {
  const handler = async (ctx: Context): Promise<void> => {
    const actor = isPublic(def.access)
      ? undefined
      : await authorize(ctx, deps.orm.em, def.access, { perMinute: deps.config.rateLimitPerMinute, perDay: deps.config.rateLimitPerDay });

    const params = def.params ? def.params.safeParse(ctx.params) : { success: true as const, data: ctx.params };
    if (!params.success) {
      const name = def.resources ? Object.values(def.resources)[0] : 'record';
      throw new DomainError('not_found', `${name ?? 'record'} not found`);
    }
    const query = def.query ? def.query.safeParse(queryForValidation(ctx, def)) : { success: true as const, data: queryForValidation(ctx, def) };
    if (!query.success) {
      const { message, details } = formatZodError(query.error, 'query');
      throw new DomainError('validation', message, details);
    }
    const preview = takePreview(ctx, def);
    let body: unknown = ctx.request.body;
    if (def.body && !def.rawBody) {
      if (ctx.request.rawBody && !ctx.request.is('json')) throw new DomainError('validation', 'request body must be JSON (Content-Type: application/json)');
      const parsed = def.body.safeParse(body ?? {});
      if (!parsed.success) {
        const { message, details } = formatZodError(parsed.error, 'body');
        throw new DomainError('validation', message, details);
      }
      body = parsed.data;
    }
    const ctxForDomain = actor ? { em: forkForWorkspace(deps.orm.em, actor.workspaceId), actor } : (undefined as never);
    const reply = await def.handler({ params: params.data, query: query.data, body, ctx: ctxForDomain, preview, koa: ctx });
    ctx.status = reply.status;
    ctx.body = reply.body;
    if (reply.headers) ctx.set(reply.headers);
  };
  const method = def.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  router[method](def.path, handler);
}

export function createApp(deps: AppDeps, routes: RouteDef[]): Koa {
  const app = new Koa({ proxy: process.env.TRUST_PROXY === '1' });
  const router = new Router();
  for (const def of routes) mount(router, def, deps);

  app.use((ctx, next) => requestContext(ctx, next, deps.log));
  app.use(errorMiddleware);
  app.use(
    bodyParser({
      enableTypes: ['json', 'form', 'text'],
      // DELETE too: some deletes name their target in the body (stage id, list items, person link).
      parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
      jsonLimit: deps.config.bodyLimitBytes,
      formLimit: deps.config.bodyLimitBytes,
      textLimit: deps.config.bodyLimitBytes,
      jsonStrict: false,
    }),
  );
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  app.use((ctx) => {
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.status = 404;
      ctx.body = { error: `no route for ${ctx.method} ${ctx.path}`, code: 'not_found' };
    }
  });
  app.silent = true;
  return app;
}
