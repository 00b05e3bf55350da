import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p } from '../orm/base';

// Appended in the same transaction as the write it describes; the dispatcher (worker) claims
// rows in id order. Not under the tenant filter: the dispatcher serves every workspace.
export const OutboxEvent = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_event',
  indexes: [
    { properties: ['processedAt', 'id'] },
    { properties: ['workspaceId', 'entityType', 'entityId', 'id'] },
    // Unprocessed events by record: the claim's per-record order probe (outbox.sql.ts), search
    // freshness (search/freshness.ts) and the lead rescore check read it.
    {
      name: 'outbox_event_pending_record_index',
      expression:
        'create index "outbox_event_pending_record_index" on "outbox_event" ("workspace_id", "entity_type", "entity_id", "id") where "processed_at" is null',
    },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    eventId: p.string().length(24).unique(),
    workspaceId: p.string().length(24),
    type: p.string().length(80),
    entityType: p.string().length(40),
    entityId: p.string().length(64),
    actorUserId: p.string().length(24).nullable(),
    payload: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
    availableAt: p.datetime(),
    attempts: p.integer().default(0),
    deliveredTo: p.array().default([]),
    processedAt: p.datetime().nullable(),
    lastError: p.text().nullable(),
    // Lease of the dispatcher currently delivering the event (see dispatcher.ts).
    lockedUntil: p.datetime().nullable(),
    lockedBy: p.string().length(100).nullable(),
  },
});
export type OutboxEvent = InferEntity<typeof OutboxEvent>;
