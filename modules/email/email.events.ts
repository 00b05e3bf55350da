import { z } from 'zod';
import { defineEvents, recordLinks, recordView } from '../../platform/outbox/define-events';

/** emailEventPayload: the message, the records it is linked to, and who sent it (sequence, api, …). */
const email = z.object({
  email: recordView,
  links: recordLinks,
  source: z.string().optional(),
  sourceRef: z.string().optional(),
});
const template = z.object({ emailTemplate: recordView });

/** E-mail events: sent (outbound claim or bulk send), received, replied, tracked, bounced; templates. */
export const emailEvents = defineEvents({
  email_sent: email.extend({ outboundMessageId: z.string(), activityId: z.string().nullable() }),
  email_received: email,
  email_replied: email.extend({
    inReplyTo: z.object({ emailId: z.string(), source: z.string().optional(), sourceRef: z.string().optional() }),
  }),
  email_opened: email,
  email_clicked: email.extend({ url: z.string().optional() }),
  email_bounced: email.extend({ recipients: z.array(z.string()) }),
  email_template_created: template,
  email_template_updated: template,
  email_template_deleted: template,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof emailEvents> {}
}
