import { z } from 'zod';
import { changedKeys, defineEvents, recordEvents } from '../../platform/outbox/define-events';

const offerType = z.object({ offerType: z.object({ _id: z.string(), name: z.string(), slug: z.string() }) });

/** Offer types (calculator templates) and calculator submissions. */
export const pricingEvents = defineEvents({
  ...recordEvents('offer_type', offerType, changedKeys),
  calculator_submission_created: z.object({
    submission: z.object({ _id: z.string(), templateId: z.string(), offerId: z.string().nullish() }),
  }),
});

// Adds these events to the names and payloads `emit()` accepts (platform/outbox/catalog.ts).
declare module '../../platform/outbox/catalog' {
  interface EventCatalogOf extends Readonly<typeof pricingEvents> {}
}
