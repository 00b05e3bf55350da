/**
 * The crm-connect module's public surface: what code outside modules/crm-connect may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`) are read by the registries directly; tests and
 * benches may reach inside.
 */
export { firstPhoneMatch, lookup, type LookupMatch } from './lookup.service';
export { MATCH_TAIL_DIGITS, normalizePhone, tailDigits, type NormalizedPhone } from './phone';
