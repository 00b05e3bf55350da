/**
 * What every router receives (`RouteFactory`): the ports the API's composition root (api/bootstrap.ts) builds once and
 * shares. Beside SubscriberDeps and ActivityDeps, it names the ports of the modules behind them (listed in
 * platform-imports-no-module): a router then depends on this file, not on the API's app (api/app.ts).
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { AppConfig } from '../config';
import type { Logger } from '../logger';
import type { WorkflowPort } from '../workflow-port';
import type { RouteDef } from './registry';
import type { MessagingDeps } from '../../modules/email';
import type { SequenceWorkflowPort } from '../../modules/sequences';
import type { SmsSchedulerPort } from '../../modules/messaging';
import type { CompanyRegistry } from '../../modules/lookups';
import type { EidProvider } from '../../modules/contracts';
import type { ActorCache } from '../../modules/workspaces';
import type { SearchService } from '../../search/search.service';
import type { CustomObjectSearch } from '../../search/custom-objects';

export interface AppDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /** Temporal client (lazy connection): automation runs, cancels, schedules. */
  temporal: Client;
  /** E-mail transports (connected mailboxes, fallback sender) and SMS gateway; closed with the runtime. */
  messaging: MessagingDeps;
  // Ports, built once by the composition root (api/bootstrap.ts) and shared by every router.
  /** Workflow starts, updates and signals; every call bounded by ENGINE_DEADLINE_MS (apiPortOptions). */
  workflows: WorkflowPort;
  /** Sequence enrollments (pause, resume, unenroll), bounded like `workflows`. */
  sequenceWorkflows: SequenceWorkflowPort;
  /** Timer workflows of scheduled SMS. */
  smsScheduler: SmsSchedulerPort;
  /** `GET /search` over Meilisearch (short timeout; degraded answers from Postgres). */
  search: SearchService;
  /** Custom object record search over Meilisearch (same client and freshness check as `search`). */
  customObjectSearch: CustomObjectSearch;
  /** The company registry (CVR_API_*) behind the lookups routes. */
  registry: CompanyRegistry;
  /** The national e-ID signing provider (EID_PROVIDER_URL) of contracts with signatureLevel eid. */
  eid: EidProvider;
  /** Named readiness probes for /readyz (postgres, temporal, meilisearch). */
  readiness: Record<string, () => Promise<void>>;
  /** API-key lookups cached in this process, emptied by NOTIFY (modules/workspaces/key-cache.ts); none: no cache. */
  keyCache?: ActorCache;
}

export type RouteFactory = (deps: AppDeps) => RouteDef[];
