import { z } from 'zod';
import { defineEvents, recordLinks, recordView } from '../../platform/outbox/define-events';

const sms = z.object({ sms: recordView, links: recordLinks });

/** SMS events: sent (outbound claim), received from the gateway, and received as a reply to ours. */
export const messagingEvents = defineEvents({
  sms_sent: sms.extend({
    outboundMessageId: z.string(),
    activityId: z.string().nullable(),
    source: z.string().nullable(),
    sourceRef: z.string().optional(),
    providerMessageId: z.string().nullable(),
    to: z.string(),
    from: z.string().nullable(),
  }),
  sms_received: sms,
  sms_replied: sms.extend({
    inReplyTo: z.object({ smsId: z.string(), source: z.string().nullable(), sourceRef: z.string().optional() }),
  }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof messagingEvents> {}
}
