import { apiPortOptions, createWorkflowPort, settleAbandonedCalls } from '../platform/temporal/workflow-client';
import type Koa from 'koa';
import { MikroORM } from '@mikro-orm/postgresql';
import { Connection } from '@temporalio/client';
import type { AppConfig } from '../platform/config';
import { createLogger, type Logger } from '../platform/logger';
import { createMessagingDeps } from '../modules/email';
import { ormConfig } from '../app/orm';
import { attachLeanPool } from '../platform/orm/lean';
import { createKeyCache, type Authenticated } from '../modules/workspaces';
import { createMeiliClient, meiliHealthy } from '../search/meili';
import { createTemporalClient } from '../platform/temporal/client';
import { createSequenceWorkflowPort } from '../modules/sequences';
import { createSmsScheduler } from '../modules/messaging';
import { createHttpRegistry } from '../adapters/registry/cvr-registry';
import { eidProviderFromConfig } from '../modules/contracts';
import { resolveImageInput } from '../modules/images';
import { createCustomObjectSearch } from '../search/custom-objects';
import { createIndexFreshness } from '../search/freshness';
import { createSearchService } from '../search/search.service';
import { createApp, type AppDeps } from './app';
import type { RouteDef } from '../platform/http/registry';
import { allRoutes } from './routes';

export interface ApiRuntime {
  app: Koa;
  deps: AppDeps;
  routes: RouteDef[];
  close(): Promise<void>;
}

// Short timeout: a slow Meilisearch should turn into a degraded answer, not a hanging request.
const SEARCH_TIMEOUT_MS = 2000;

/**
 * Wires the API's dependencies from config (the API's composition root: every port is built here once and shared by
 * the routers); used by bin/api.ts and by the HTTP tests.
 */
export async function buildApi(
  config: AppConfig,
  log: Logger = createLogger(config.logLevel, 'api'),
): Promise<ApiRuntime> {
  const orm = await MikroORM.init(ormConfig(config.databaseUrl));
  const closeLeanPool = attachLeanPool(orm.em, {
    max: config.dbLeanPoolMax,
    onError: (err) => log.warn({ err: err.message }, 'lean pool: an idle connection failed'),
  });
  // Probe-only connection: no retry interceptor, so a down server fails the probe fast and cleanly.
  const temporal = Connection.lazy({ address: config.temporalAddress, connectTimeout: 2000, interceptors: [] });
  const meili = createMeiliClient(config.meiliUrl, config.meiliMasterKey);
  // Work connection (default retries), separate from the probe: connects on first use.
  const client = createTemporalClient(Connection.lazy({ address: config.temporalAddress }), config);
  const keyCache = createKeyCache<Authenticated>({
    connectionString: config.databaseUrl,
    log,
    ttlMs: config.keyCacheTtlMs,
  });
  await keyCache.start();
  const searchClient = createMeiliClient(config.meiliUrl, config.meiliMasterKey, { timeoutMs: SEARCH_TIMEOUT_MS });
  const searchPorts = {
    client: searchClient,
    prefix: config.meiliIndexPrefix,
    log,
    freshness: createIndexFreshness({ client: searchClient, prefix: config.meiliIndexPrefix }),
  };
  const deps: AppDeps = {
    orm,
    config,
    log,
    temporal: client,
    messaging: createMessagingDeps(config),
    // Calls that answer a user: a Temporal outage answers within the engine deadline.
    workflows: createWorkflowPort(client, config.temporalTaskQueue, apiPortOptions(config)),
    sequenceWorkflows: createSequenceWorkflowPort(client, config.temporalTaskQueue, apiPortOptions(config)),
    smsScheduler: createSmsScheduler(client, config.temporalTaskQueue),
    search: createSearchService(searchPorts),
    customObjectSearch: createCustomObjectSearch(searchPorts),
    registry: createHttpRegistry(config.lookups, { allowHosts: config.outboundAllowHosts }),
    eid: eidProviderFromConfig(config.eidProviderUrl),
    // Image fields re-host through the workspace image store with this deployment's public URL and allow-list.
    images: (ctx, value) =>
      resolveImageInput(ctx, value, { publicBaseUrl: config.publicBaseUrl, allowHosts: config.outboundAllowHosts }),
    keyCache,
    readiness: {
      postgres: async () => {
        await orm.em.fork().getConnection().execute('select 1');
      },
      temporal: async () => {
        await temporal.withDeadline(Date.now() + 2000, () => temporal.workflowService.getSystemInfo({}));
      },
      meilisearch: () => meiliHealthy(meili),
    },
  };
  const routes = allRoutes(deps);
  const app = createApp(deps, routes);
  return {
    app,
    deps,
    routes,
    async close() {
      deps.messaging.close();
      await settleAbandonedCalls();
      await Promise.allSettled([
        keyCache.stop(),
        closeLeanPool(),
        orm.close(true),
        temporal.close(),
        client.connection.close(),
      ]);
    },
  };
}
