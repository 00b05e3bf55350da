import type { Ctx } from '../context';
import { newId } from '../ids';
import { OutboxEvent } from './outbox-event.entity';

export interface DomainEventInput {
  /** Event name in the automation trigger vocabulary, e.g. company_created, person_updated, tag_added. */
  type: string;
  /** company, person, lead, deal, … */
  entityType: string;
  entityId: string;
  payload: Record<string, unknown>;
}

/**
 * Appends an event to the outbox through the request's entity manager, so it is written in the
 * same flush (one transaction) as the change it describes; a rolled-back write emits nothing.
 */
export function emit(ctx: Ctx, event: DomainEventInput): void {
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
