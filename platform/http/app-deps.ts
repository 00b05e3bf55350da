/**
 * What every router receives (`RouteFactory`): the ports the API's composition root (api/bootstrap.ts) builds once and
 * shares. This file names platform's own; a module adds the ports of its routers by declaration merging in its module
 * file (`declare module '../../platform/http/app-deps' { interface AppDeps { … } }`), as ActivityDeps and
 * SubscriberDeps are extended: platform imports no module, and tsc still fails a composition root that leaves out a
 * port some router reads. A router depends on this file, not on the API's app (api/app.ts).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { AppConfig } from '../config';
import type { Logger } from '../logger';
import type { WorkflowPort } from '../workflow-port';
import type { RouteDef } from './registry';

export interface AppDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** Temporal client (lazy connection): automation runs, cancels, schedules. */
  temporal: Client;
  // Ports, built once by the composition root (api/bootstrap.ts) and shared by every router.
  /** Workflow starts, updates and signals; every call bounded by ENGINE_DEADLINE_MS (apiPortOptions). */
  workflows: WorkflowPort;
  /** Named readiness probes for /readyz (postgres, temporal, meilisearch). */
  readiness: Record<string, () => Promise<void>>;
}

export type RouteFactory = (deps: AppDeps) => RouteDef[];
