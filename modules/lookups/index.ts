/**
 * The lookups module's public surface: what code outside modules/lookups may import (dependency-cruiser
 * `module-public-surface`): the person lookup of GET /people/lookup, the registry port's types for AppDeps and the
 * settings loader loadConfig reads. The module file is read by the registries directly, the registry port
 * (`registry.port.ts`) by adapters/registry; tests may reach inside. The company lookup is the companies module's
 * (company-lookup.ts), the canonical match keys and their request fields are platform/shared (normalize.ts,
 * match-keys.schemas.ts): companies imports nothing of lookups.
 */
export { lookupPerson } from './lookup.service';
export { personLookupQuery } from './lookups.schemas';
export { personLookupView, type PersonLookupView } from './lookups.views';
export type { CompanyRegistry, RegistryCompany, RegistryQuery } from './registry.port';
export { lookupEnv, type LookupEnv } from './settings';
