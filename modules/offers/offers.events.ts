import { z } from 'zod';
import { changedKeys, defineEvents, openObject, recordEvents, recordView } from '../../platform/outbox/define-events';

const offer = z.object({ offer: openObject });
/** offerEventPayload: the offer plus the deal and company namespaces automations read. */
const offerWithRelated = offer.extend({
  deal: z.looseObject({ _id: z.string(), title: z.string(), value: z.unknown() }).optional(),
  company: z.looseObject({ _id: z.string(), name: z.string() }).optional(),
});
const response = offerWithRelated.extend({
  response: z.object({
    decision: z.enum(['accepted', 'declined']),
    name: z.string().nullable(),
    email: z.string().nullable(),
    comment: z.string().nullable(),
    at: z.string(),
  }),
});
const template = z.object({ offerTemplate: recordView });
const product = z.object({ product: recordView });
const catalogItem = z.object({ catalogItem: recordView });

/** Offers (lifecycle and the recipient's response), offer settings, templates, products, catalog items. */
export const offerEvents = defineEvents({
  ...recordEvents('offer', offer, changedKeys),
  offer_sent: offerWithRelated,
  offer_viewed: offerWithRelated,
  offer_cancelled: offerWithRelated,
  /** Webhook `offer.accepted`. */
  offer_accepted: response,
  /** Webhook `offer.declined`. */
  offer_rejected: response,
  offer_settings_updated: z.object({ changedKeys }),
  ...recordEvents('offer_template', template, changedKeys),
  ...recordEvents('product', product),
  ...recordEvents('catalog_item', catalogItem),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof offerEvents> {}
}
