/**
 * Loop guard: events written by an automation's actions carry `payload.causedBy` (the automation,
 * execution and chain of automations that led to it; also on events written without the unit of
 * work, through outbox/emit.ts outboxRow). The trigger subscriber never starts an
 * automation that is already in an event's chain, so A → event → A (or A → B → A) cannot loop,
 * while other automations may still react to what an automation did.
 */
import type { EventSubscriber, FlushEventArgs } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { TENANT_FILTER } from '../../../platform/orm/tenant';
import type { OutboxPayloadStamp } from '../../../platform/outbox/emit';
import { OutboxEvent } from '../../../platform/outbox/outbox-event.entity';

export interface EventOrigin {
  automationId: string;
  executionId: string;
  /** Automation ids from the first cause to this one. */
  chain: string[];
}

/** Longest chain of automations triggering automations; deeper events start nothing. */
export const MAX_CHAIN = 10;

class StampOrigin implements EventSubscriber, OutboxPayloadStamp {
  constructor(private readonly origin: EventOrigin) {}
  stampOutboxPayload(payload: Record<string, unknown>): Record<string, unknown> {
    return { ...payload, causedBy: this.origin };
  }
  onFlush(args: FlushEventArgs): void {
    for (const cs of args.uow.getChangeSets()) {
      if (cs.type !== 'create' || cs.meta.className !== OutboxEvent.meta.className) continue;
      const entity = cs.entity as OutboxEvent;
      entity.payload = this.stampOutboxPayload(entity.payload);
      args.uow.recomputeSingleChangeSet(entity);
    }
  }
}

/** A workspace-bound EM whose outbox events are stamped with `origin` (one per action activity call). */
export function emWithOrigin(orm: MikroORM, workspaceId: string, origin: EventOrigin): EntityManager {
  const em = orm.em.fork({ clear: true, useContext: false, cloneEventManager: true });
  em.setFilterParams(TENANT_FILTER, { workspaceId });
  em.getEventManager().registerSubscriber(new StampOrigin(origin));
  return em;
}

/** The chain an outbox event carries (empty for events not caused by an automation). */
export function chainOf(payload: Record<string, unknown>): string[] {
  const causedBy = payload.causedBy as { chain?: unknown } | undefined;
  return Array.isArray(causedBy?.chain) ? causedBy.chain.filter((x): x is string => typeof x === 'string') : [];
}
