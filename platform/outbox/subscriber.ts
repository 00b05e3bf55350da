import type { MikroORM } from '@mikro-orm/postgresql';
import type { WorkflowPort } from '../workflow-port';
import type { AppConfig } from '../config';
import type { EventName } from './catalog';
import type { Logger } from '../logger';

/** An outbox row as subscribers see it (read with raw SQL by the dispatcher, not an ORM entity). */
export interface OutboxEventRecord {
  /** bigserial as a string: the per-record delivery order. */
  id: string;
  /** 24-hex event id: the key subscribers dedupe on (delivery is at least once). */
  eventId: string;
  workspaceId: string;
  /** A declared name: rows are written by emit()/outboxRow(), which accept no other. */
  type: EventName;
  entityType: string;
  entityId: string;
  actorUserId: string | null;
  payload: Record<string, unknown>;
  occurredAt: Date;
  /** Delivery attempts so far, this one included (a crashed attempt counts too). */
  attempts: number;
}

/** What a batch handler reports: the error of each event that failed (by `OutboxEventRecord.id`). */
export type BatchFailures = ReadonlyMap<string, unknown>;

/**
 * A failure retrying cannot mend (an SMTP 550, a refused address): the delivery is marked `failed`
 * at once instead of being retried. Any error with `permanent: true` (messaging's DeliveryError) or
 * `details.permanent: true` counts as well.
 */
export class PermanentFailure extends Error {
  readonly permanent = true;
}

export function isPermanentFailure(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { permanent?: unknown; details?: { permanent?: unknown } };
  return e.permanent === true || e.details?.permanent === true;
}

/**
 * A consumer of domain events. Handlers must be idempotent on `event.eventId`: after a crash or a
 * lost lease the same event can arrive again. A failed event is parked for this subscriber only
 * (outbox_delivery) and retried on its own schedule (about a day); this subscriber's later events
 * of the same record queue behind it, while every other subscriber goes on.
 *
 * Implement `handle` (one event at a time; the dispatcher runs several in parallel) or
 * `handleBatch` (every event of one claimed batch at once — at most one event per record, in id
 * order — for subscribers that save round trips by grouping, such as search indexing and
 * automation starts). Subscribers run in parallel with each other.
 */
export interface Subscriber {
  /** Stable and unique: recorded in `outbox_event.delivered_to` once this subscriber succeeded. */
  name: string;
  /** Cheap synchronous filter; events it rejects are never handed to this subscriber. */
  handles?: (event: OutboxEventRecord) => boolean;
  /** Throwing fails this event for this subscriber. */
  handle?(event: OutboxEventRecord): Promise<void>;
  /** Resolves with the failed events (absent or empty: all delivered); throwing fails them all. */
  handleBatch?(events: OutboxEventRecord[]): Promise<BatchFailures | void>;
}

/**
 * What subscribers may use. Each subscriber forks its own EM per event (never `orm.em` itself).
 * Ports to other engines (workflow starter, search indexer, webhook sender) are optional fields, so that a module
 * stays free of Temporal and search imports. A module adds its own by declaration merging
 * (`declare module '…/platform/outbox/subscriber' { interface SubscriberDeps { … } }`): platform imports no module.
 */
export interface SubscriberDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  /**
   * The automation engine's workflow port (the `automations` subscribers; buildSubscribers refuses to run without it
   * unless told).
   */
  workflows?: WorkflowPort;
  /**
   * search/index-subscriber.ts's createSearchIndexSubscriber (the `search-index` subscriber; required unless left out
   * by name).
   */
  searchIndex?: (deps: Pick<SubscriberDeps, 'orm' | 'config' | 'log'>) => Subscriber;
  /**
   * A run starter runs beside this dispatcher (the worker, automations/engine/starter.ts): the `automations`
   * subscriber then caps each workspace's runs in flight (config automationMaxInFlightPerWorkspace) and queues the
   * rest for it. Without a starter every run starts at once (a queued one would never start).
   */
  runStarter?: boolean;
}
