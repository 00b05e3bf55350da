import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import { DomainError } from '../../platform/errors';
import { UNAVAILABLE_RETRY_AFTER_S } from '../../platform/shared/unavailable';
import { whoamiView } from './workspaces.views';
import { envelopes, publicRoute } from '../../platform/http/crud';
import { ok, route } from '../../platform/http/registry';
import { getWhoami } from './whoami.service';

const PROBE_TIMEOUT_MS = 2000;

/** Probe name (postgres, temporal, meilisearch) → `ok` or `unreachable: <reason>`. */
const checksView = z
  .record(z.string(), z.string())
  .describe('dependency (postgres, temporal, meilisearch) → "ok" or "unreachable: <reason>"');
const healthView = z.object({ status: z.literal('ok') });
const readyView = z.object({ status: z.literal('ready'), checks: checksView });
type ReadyView = z.infer<typeof readyView>;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export const systemRoutes: RouteFactory = (deps) => [
  publicRoute({
    method: 'GET',
    path: '/healthz',
    section: 'System',
    summary: 'Liveness: the process is up.',
    reason: 'liveness probe',
    response: healthView,
    handler: async () => ({ status: 200, body: { status: 'ok' } }),
  }),
  publicRoute({
    method: 'GET',
    path: '/readyz',
    section: 'System',
    summary: 'Readiness: Postgres, Temporal and Meilisearch are reachable; 503 naming the failing part otherwise.',
    description:
      'Not ready: 503 `{ error: "not ready: <names> unreachable", checks }` (the error body plus `checks`) with Retry-After.',
    reason: 'readiness probe',
    response: readyView,
    handler: async () => {
      const entries = await Promise.all(
        Object.entries(deps.readiness).map(async ([name, probe]) => {
          try {
            await withTimeout(probe(), PROBE_TIMEOUT_MS);
            return [name, 'ok'] as const;
          } catch (err) {
            return [name, `unreachable: ${err instanceof Error ? err.message : String(err)}`] as const;
          }
        }),
      );
      const checks: Record<string, string> = Object.fromEntries(entries);
      const failing = entries.filter(([, state]) => state !== 'ok').map(([name]) => name);
      if (failing.length)
        return {
          status: 503,
          body: { error: `not ready: ${failing.join(', ')} unreachable`, checks },
          // A dependency that is down answers 503 with Retry-After (house rule; the contract requires it).
          headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
        };
      const body: ReadyView = { status: 'ready', checks };
      return { status: 200, body };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/whoami',
    section: 'Session',
    summary: 'Workspace name, user name, key prefix and effective scopes of the calling key. Any valid key works.',
    access: { scopes: [] },
    query: z.object({}),
    response: envelopes.data(whoamiView),
    handler: async ({ ctx, koa }) => {
      if (!ctx.actor.keyId) throw new DomainError('unauthenticated', 'no key');
      return ok(await getWhoami(ctx, { id: ctx.actor.keyId, prefix: koa.state.keyPrefix as string }));
    },
  }),
];
