/**
 * The offers module's public surface: what code outside modules/offers may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside.
 */
export { Offer, OFFER_STATUSES, OfferTemplate, type OfferStatus } from './offer.entity';
