/** The outbox dispatcher's options and results (dispatcher.ts). */
import type { Logger } from '../logger';
import type { Backoff } from './backoff';
import type { Subscriber } from './subscriber';

export interface OutboxDispatcherOptions {
  /** The dispatcher owns a small pg pool for claims and progress plus one LISTEN connection. */
  pgConnectionString: string;
  subscribers: readonly Subscriber[];
  log: Logger;
  /** Events claimed per statement (default 100). At most one event per record is in a batch. */
  batchSize?: number;
  /**
   * Per-event subscribers: events of one batch handled in parallel (default 8); they all belong to different records.
   */
  concurrency?: number;
  /**
   * Batches in flight at once (default 1), each claimed and delivered by its own runner. More
   * helps when one subscriber is slow (a batch waits for its slowest subscriber); measured with
   * bench:automations, 2 raised throughput ~5% but doubled event-to-first-action latency.
   */
  parallelBatches?: number;
  /**
   * With parallelBatches > 1: how long events that arrive while a runner is busy wait for it before
   * an idle runner claims them (default 50 ms). A runner normally finishes a batch in a few
   * milliseconds and then claims what arrived meanwhile in one go; a slow subscriber can hold it for seconds.
   */
  slowBatchMs?: number;
  /**
   * Under a steady trickle, a runner claims at most this often (default 100 ms): events written
   * meanwhile go out together in its next claim instead of one or two per claim, which costs a claim,
   * the subscribers' look-ups and an outcome statement each. Only after a claim that found some
   * events but not a full batch: the first event after a quiet spell and a backlog go at once.
   */
  claimIntervalMs?: number;
  /**
   * Claims serve the workspaces with a backlog in turns (default true, outbox.sql.ts claimSql); false claims first in,
   * first out across workspaces, as before fair sharing (bench:fairness measures its baseline so).
   */
  fairShare?: boolean;
  /** Fallback poll when no NOTIFY arrives (default 2 s). */
  pollIntervalMs?: number;
  /** How long a claim is exclusive; renewed every third of it while delivering (default 30 s). */
  leaseMs?: number;
  /**
   * A parked delivery (one subscriber's failed event) is `failed` after this many attempts; an event
   * whose deliveries crashed the dispatcher this often is dead-lettered. Default: with the default
   * backoff, its schedule's length + 1 (8: about a day); with a given backoff, retried forever.
   */
  maxAttempts?: number;
  /**
   * Delay before a parked delivery's next attempt after `attempts` attempts. Default: the webhook
   * schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; +20% jitter), so an outside service that is
   * down for hours still gets each notification once it returns.
   */
  backoff?: Backoff;
  /** Only claim events of these workspaces (tests share one database); default: every workspace. */
  workspaceIds?: readonly string[];
  /** Recorded in `locked_by`; default host:pid:random. */
  dispatcherId?: string;
}

export interface DrainResult {
  claimed: number;
  processed: number;
  failed: number;
  /** A processed event's record has a later event waiting: it became claimable just now. */
  chained?: boolean;
  /** Deliveries parked (failed) or queued behind a parked one by these batches. */
  parked?: number;
  /** drainOnce: parked deliveries attempted again, delivered, failed again. */
  retried?: { claimed: number; delivered: number; failed: number };
}

export interface OutboxDispatcher {
  readonly id: string;
  /** Starts LISTEN (awaits the first connection attempt) and the delivery loop. */
  start(): Promise<void>;
  /** Stops claiming, waits for the in-flight batch, closes the connections. */
  stop(): Promise<void>;
  /** Delivers batches until nothing is claimable right now (tests; not for use alongside start()). */
  drainOnce(): Promise<DrainResult>;
}
