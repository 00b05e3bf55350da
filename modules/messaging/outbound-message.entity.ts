import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export type OutboundChannel = 'email' | 'sms';
/**
 * queued: claimed, being handed to the provider; sent: the provider accepted it; failed: the
 * provider refused it or could not be reached (nothing left, safe to send again); unknown: the
 * attempt stopped after the hand-over may have happened, so it is never sent again automatically.
 */
export type OutboundStatus = 'queued' | 'sent' | 'failed' | 'unknown';

/**
 * One outgoing e-mail or SMS. The (workspace, idempotencyKey) unique index is what makes a
 * retried send (a replayed automation step) hand a message to the provider at most once.
 */
export const OutboundMessage = defineEntity({
  name: 'OutboundMessage',
  tableName: 'outbound_message',
  uniques: [{ properties: ['workspaceId', 'idempotencyKey'] }],
  indexes: workspaceIndexes('createdAt'),
  properties: {
    ...tenantProps,
    channel: p.string().length(10).$type<OutboundChannel>(),
    /** Null when the caller gave no key (every call sends). */
    idempotencyKey: p.string().length(200).nullable(),
    status: p.string().length(10).$type<OutboundStatus>(),
    source: p.string().length(20),
    recipients: p.json<string[]>(),
    /** The timeline row that shows this message. */
    activityId: p.string().length(24),
    providerMessageId: p.string().length(1000).nullable(),
    /** Provider answer beyond the id (accepted/rejected recipients, gateway status). */
    result: p.json<Record<string, unknown>>().nullable(),
    error: p.text().nullable(),
    attempts: p.integer().default(1),
    /** When the current attempt claimed the row; a `queued` row older than the stale window is an abandoned attempt. */
    claimedAt: p.datetime(),
    sentAt: p.datetime().nullable(),
  },
});
export type OutboundMessage = InferEntity<typeof OutboundMessage>;
