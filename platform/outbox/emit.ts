import type { Ctx } from '../context';
import { newId } from '../ids';
import type { EventName, EventPayload } from './catalog';
import { OutboxEvent } from './outbox-event.entity';

export interface DomainEventInput<N extends EventName = EventName> {
  /** A declared event name (catalog.ts), e.g. company_created, person_updated, tag_added. */
  type: N;
  /** company, person, lead, deal, … */
  entityType: string;
  entityId: string;
  /** What the event declares for that name (NoInfer: the name alone picks the event). */
  payload: NoInfer<EventPayload<N>>;
}

/**
 * Appends an event to the outbox through the request's entity manager, so it is written in the
 * same flush (one transaction) as the change it describes; a rolled-back write emits nothing.
 */
export function emit<N extends EventName>(ctx: Ctx, event: DomainEventInput<N>): void {
  const now = new Date();
  ctx.em.persist(
    ctx.em.create(OutboxEvent, {
      eventId: newId(now),
      workspaceId: ctx.actor.workspaceId,
      type: event.type,
      entityType: event.entityType,
      entityId: event.entityId,
      actorUserId: ctx.actor.userId,
      payload: event.payload,
      occurredAt: now,
      availableAt: now,
      attempts: 0,
      deliveredTo: [],
      processedAt: null,
    }),
  );
}

/**
 * An event subscriber of an entity manager that adds to the payload of every outbox event the
 * manager writes (the automation engine's loop guard stamps `causedBy`). Events written without
 * the unit of work (outboxRow) ask the manager's subscribers for it, so both ways stamp alike.
 */
export interface OutboxPayloadStamp {
  stampOutboxPayload(payload: Record<string, unknown>): Record<string, unknown>;
}

const isStamp = (s: unknown): s is OutboxPayloadStamp =>
  typeof (s as Partial<OutboxPayloadStamp> | null)?.stampOutboxPayload === 'function';

/**
 * An outbox event as a plain row (entity property names) for set-based inserts (lean.ts
 * insertRowsSql) that write it in the same statement as the change it describes: the same row
 * `emit` would persist, stamped by the entity manager's OutboxPayloadStamp if it has one.
 */
export function outboxRow<N extends EventName>(
  ctx: Ctx,
  at: Date,
  type: N,
  entityType: string,
  entityId: string,
  payload: NoInfer<EventPayload<N>>,
): Record<string, unknown> {
  let stamped: Record<string, unknown> = payload;
  for (const s of ctx.em.getEventManager().getSubscribers()) if (isStamp(s)) stamped = s.stampOutboxPayload(stamped);
  return {
    eventId: newId(at),
    workspaceId: ctx.actor.workspaceId,
    type,
    entityType,
    entityId,
    actorUserId: ctx.actor.userId,
    payload: stamped,
    occurredAt: at,
    availableAt: at,
    attempts: 0,
    deliveredTo: [],
    processedAt: null,
  };
}
