import Koa, { type Context, type Next } from 'koa';
import { bodyParser } from '@koa/bodyparser';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../platform/config';
import { DomainError } from '../platform/errors';
import { newId } from '../platform/ids';
import type { Logger } from '../platform/logger';
import { lazyWorkspaceCtx } from '../platform/orm/tenant';
import { authorize } from '../modules/workspaces';
import { dispatchBySegments, type Mounted } from '../platform/http/dispatch';
import { createAuthFailureLimiter, type AuthFailureLimiter } from '../platform/http/auth-failures';
import { codecServer } from '../platform/http/codec-server';
import { formatZodError } from '../platform/shared/schemas';
import { errorMiddleware } from '../platform/http/errors';
import { contractCheckMiddleware, markRoute } from './docs/contract-check';
import { idempotencyKeyOf, withIdempotency } from '../platform/http/idempotency';
import { assertStorableParams, bodyParseError, inputGuard } from '../platform/http/input-guard';
import { isPublic, type RouteDef } from '../platform/http/registry';
import type { AppDeps } from '../platform/http/app-deps';
import { assertRouteReferences } from '../platform/http/references';

export type { AppDeps, RouteFactory } from '../platform/http/app-deps';

const REQUEST_ID_RE = /^[\w.-]{1,64}$/;

/** Paths whose segment is a bearer capability (contract signing links): logged without it. */
const SECRET_PATH_SEGMENT = /^(\/public\/contracts\/sign\/)[^/]+/;
export const loggedPath = (path: string): string => path.replace(SECRET_PATH_SEGMENT, '$1[redacted]');

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
      {
        requestId,
        method: ctx.method,
        path: loggedPath(ctx.path),
        status: ctx.status,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        workspaceId: ctx.state.workspaceId,
      },
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

function mount(def: RouteDef, deps: AppDeps, authFailures: AuthFailureLimiter): Mounted {
  const notFound = `${(def.resources ? Object.values(def.resources)[0] : undefined) ?? 'record'} not found`;
  const limits = { perMinute: deps.config.rateLimitPerMinute, perDay: deps.config.rateLimitPerDay };
  const handler = async (ctx: Context): Promise<void> => {
    markRoute(ctx, def);
    // Auth, rate limit and idempotency only borrow the pool's connection; the handler gets the one fork.
    const em = deps.orm.em;
    const actor = isPublic(def.access)
      ? undefined
      : await authorize(ctx, em, def.access, limits, authFailures, deps.keyCache);

    // Validation and handler; answers the names of the headers the handler set (kept with an idempotent response).
    const run = async (): Promise<readonly string[]> => {
      assertStorableParams(ctx.params, notFound);
      const params = def.params ? def.params.safeParse(ctx.params) : { success: true as const, data: ctx.params };
      if (!params.success) throw new DomainError('not_found', notFound);
      const query = def.query
        ? def.query.safeParse(queryForValidation(ctx, def))
        : { success: true as const, data: queryForValidation(ctx, def) };
      if (!query.success) {
        const { message, details } = formatZodError(query.error, 'query');
        throw new DomainError('validation', message, details);
      }
      const preview = takePreview(ctx, def);
      let body: unknown = ctx.request.body;
      if (def.body && !def.rawBody) {
        if (ctx.request.rawBody && !ctx.request.is('json'))
          throw new DomainError('validation', 'request body must be JSON (Content-Type: application/json)');
        const parsed = def.body.safeParse(body ?? {});
        if (!parsed.success) {
          const { message, details } = formatZodError(parsed.error, 'body');
          throw new DomainError('validation', message, details);
        }
        body = parsed.data;
      }
      // The EM fork is made when the handler first uses ctx.em; the lean reads never do (domain/orm/tenant.ts).
      const ctxForDomain = actor ? lazyWorkspaceCtx(em, actor) : (undefined as never);
      // Declared reference fields (ref('<kind>') on the schema) must name records of this workspace.
      if (actor)
        await assertRouteReferences(ctxForDomain, def, params.data as Record<string, unknown>, query.data, body);
      const reply = await def.handler({
        params: params.data,
        query: query.data,
        body,
        ctx: ctxForDomain,
        preview,
        koa: ctx,
      });
      ctx.status = reply.status;
      ctx.body = reply.body;
      if (reply.headers) ctx.set(reply.headers);
      return Object.keys(reply.headers ?? {});
    };
    const idempotencyKey = actor ? idempotencyKeyOf(ctx) : undefined;
    const prepared = def.prepareBody ? await def.prepareBody(ctx) : undefined;
    try {
      if (prepared) ctx.request.body = prepared.summary;
      if (actor && idempotencyKey !== undefined) await withIdempotency(ctx, em, actor.workspaceId, idempotencyKey, run);
      else await run();
    } finally {
      await prepared?.dispose();
    }
  };
  return { method: def.method.toLowerCase() as Mounted['method'], path: def.path, handler };
}

export function createApp(deps: AppDeps, routes: RouteDef[]): Koa {
  const app = new Koa({ proxy: process.env.TRUST_PROXY === '1' });
  const authFailures = createAuthFailureLimiter(deps.config.authFailuresPerMinute);
  const mounted = routes.map((def) => mount(def, deps, authFailures));

  app.use((ctx, next) => requestContext(ctx, next, deps.log));
  if (deps.config.contractCheck)
    app.use(contractCheckMiddleware(() => routes, deps.config.contractCheck.violationsFile));
  app.use(errorMiddleware);
  // Temporal codec server (outside /api/v1, own token; reads its own body): api/http/codec-server.ts.
  app.use(codecServer(deps.config.temporalCodec));
  app.use(
    bodyParser({
      enableTypes: ['json', 'form', 'text'],
      // DELETE too: some deletes name their target in the body (stage id, list items, person link).
      parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
      jsonLimit: deps.config.bodyLimitBytes,
      formLimit: deps.config.bodyLimitBytes,
      textLimit: deps.config.bodyLimitBytes,
      jsonStrict: false,
      onError: (err, ctx) => {
        throw bodyParseError(err, ctx);
      },
    }),
  );
  app.use(inputGuard);
  // router.routes() + allowedMethods({ throw: true }) over all routes, by the path's first segments.
  app.use(dispatchBySegments(mounted));
  app.use((ctx) => {
    if (ctx.status === 404 && ctx.body === undefined) {
      ctx.status = 404;
      ctx.body = { error: `no route for ${ctx.method} ${ctx.path}`, code: 'not_found' };
    }
  });
  app.silent = true;
  return app;
}
