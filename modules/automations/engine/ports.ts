/**
 * What the engine needs from the workflow engine: the generic WorkflowPort of domain/workflow-port.ts
 * (domain/ never imports Temporal, house rule 2; the adapter is temporal/workflow-client.ts).
 */
import type { WorkflowPort } from '../../../platform/workflow-port';

export type { WorkflowPort } from '../../../platform/workflow-port';

/** What every engine entry point receives (API, outbox subscribers, activities). */
export interface EngineDeps {
  orm: import('@mikro-orm/postgresql').MikroORM;
  log: import('../../../platform/logger').Logger;
  workflows: WorkflowPort;
  /** API starts: queued runs per workspace before the intake answers 429 (config INTAKE_MAX_QUEUED_PER_WORKSPACE). */
  intakeMaxQueued?: number;
  /**
   * The per-workspace cap on runs in flight (engine/in-flight.ts), set only where a starter runs beside the outbox
   * subscriber (the worker): without one, runs the cap would queue would never start.
   */
  inFlight?: import('./in-flight').InFlightLimit;
  /** Tests only: replaces retryIntervalMinutes (whose minimum is one minute). */
  retryIntervalMs?: number;
}
