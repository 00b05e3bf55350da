/**
 * The lookups module's public surface: what code outside modules/lookups may import (dependency-cruiser
 * `module-public-surface`): the registry port's types for AppDeps and the settings loader loadConfig reads. The
 * module file is read by the registries directly, the registry port (`registry.port.ts`) by adapters/registry; tests
 * may reach inside. The company and person lookups are the companies and people modules' (company-lookup.ts,
 * person-lookup.ts), the canonical match keys and their request fields are platform/shared (normalize.ts,
 * match-keys.schemas.ts): companies and people import nothing of lookups.
 */
export type { CompanyRegistry, RegistryCompany, RegistryQuery } from '../../platform/ports/registry.port';
export { lookupEnv, type LookupEnv } from './settings';
