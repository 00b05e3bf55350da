import { z } from 'zod';
import { changedKeys, defineEvents, fieldChanges, openObject, recordView } from '../../platform/outbox/define-events';

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
  offer_created: offer,
  offer_updated: offer.extend({ changes: changedKeys }),
  offer_deleted: offer,
  offer_sent: offerWithRelated,
  offer_viewed: offerWithRelated,
  offer_cancelled: offerWithRelated,
  /** Webhook `offer.accepted`. */
  offer_accepted: response,
  /** Webhook `offer.declined`. */
  offer_rejected: response,
  offer_settings_updated: z.object({ changedKeys }),
  offer_template_created: template,
  offer_template_updated: template.extend({ changes: changedKeys }),
  offer_template_deleted: template,
  product_created: product,
  product_updated: product.extend({ changes: fieldChanges }),
  product_deleted: product,
  catalog_item_created: catalogItem,
  catalog_item_updated: catalogItem.extend({ changes: fieldChanges }),
  catalog_item_deleted: catalogItem,
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof offerEvents> {}
}
