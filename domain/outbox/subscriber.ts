/** An outbox row as subscribers see it (read with raw SQL by the dispatcher, not an ORM entity). */
export interface OutboxEventRecord {
  /** bigserial as a string: the per-record delivery order. */
  id: string;
  /** 24-hex event id: the key subscribers dedupe on (delivery is at least once). */
  eventId: string;
  workspaceId: string;
  type: string;
  entityType: string;
  entityId: string;
  actorUserId: string | null;
  payload: Record<string, unknown>;
  occurredAt: Date;
  /** Delivery attempts so far, this one included (a crashed attempt counts too). */
  attempts: number;
}

/**
 * A consumer of domain events. `handle` must be idempotent on `event.eventId`: after a crash or a
 * lost lease the same event can arrive again. Throwing schedules a retry with backoff, and later
 * events of the same record wait until this one is delivered.
 */
export interface Subscriber {
  /** Stable and unique: recorded in `outbox_event.delivered_to` once this subscriber succeeded. */
  name: string;
  /** Cheap synchronous filter; events it rejects are never handed to this subscriber. */
  handles?: (event: OutboxEventRecord) => boolean;
  handle(event: OutboxEventRecord): Promise<void>;
}
