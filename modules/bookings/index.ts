/**
 * The bookings module's public surface: what code outside modules/bookings may import (dependency-cruiser
 * `module-public-surface`). Nothing else is used from outside today; declaration files (`*.module.ts`,
 * `*.resource.ts`, `*.events.ts`, `*.kind.ts`, `*.messages.ts`, `*.workflow.ts`) are read by the registries directly;
 * tests and benches may reach inside.
 */
export { bookingApprovalKind } from './booking-approval.kind';
export type { BookingApprovalInput } from './booking-approval.messages';
