import { z } from 'zod';
import type { RouteFactory } from '../app';
import { DomainError } from '../../domain/errors';
import { ok, route } from '../http/registry';
import { getWhoami } from '../../domain/workspaces/whoami.service';

const PROBE_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

export const systemRoutes: RouteFactory = (deps) => [
  route({
    method: 'GET',
    path: '/healthz',
    section: 'System',
    summary: 'Liveness: the process is up.',
    access: { public: 'liveness probe' },
    handler: async () => ({ status: 200, body: { status: 'ok' } }),
  }),
  route({
    method: 'GET',
    path: '/readyz',
    section: 'System',
    summary: 'Readiness: Postgres, Temporal and Meilisearch are reachable; 503 naming the failing part otherwise.',
    access: { public: 'readiness probe' },
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
      const checks = Object.fromEntries(entries);
      const failing = entries.filter(([, state]) => state !== 'ok').map(([name]) => name);
      if (failing.length)
        return { status: 503, body: { error: `not ready: ${failing.join(', ')} unreachable`, checks } };
      return { status: 200, body: { status: 'ready', checks } };
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/whoami',
    section: 'Session',
    summary: 'Workspace name, user name, key prefix and effective scopes of the calling key. Any valid key works.',
    access: { scopes: [] },
    query: z.object({}),
    handler: async ({ ctx, koa }) => {
      if (!ctx.actor.keyId) throw new DomainError('unauthenticated', 'no key');
      return ok(await getWhoami(ctx, koa.state.keyPrefix as string));
    },
  }),
];
