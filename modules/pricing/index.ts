/**
 * The pricing module's public surface: what code outside modules/pricing may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside.
 */
export { OfferType } from './offer-type.entity';
