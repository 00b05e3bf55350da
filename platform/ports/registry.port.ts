/**
 * The company-registry port with its settings and error; its HTTP adapter is adapters/registry/cvr-registry.ts, the
 * loader of the settings lookupEnv (settings.ts).
 */

/** Registry and public-avatar settings (CVR_API_URL, CVR_API_TOKEN, CVR_API_COUNTRY, AVATAR_LOOKUP_URL). */
export interface LookupEnv {
  cvrApiUrl?: string;
  cvrApiToken?: string;
  /** Registry country code sent with every search (default dk). */
  cvrCountry: string;
  /** Base URL of the Gravatar-compatible avatar service (default https://www.gravatar.com); `off` disables it. */
  avatarLookupUrl: string | null;
}

export const REGISTRY_NOT_CONFIGURED =
  'company registry lookups are not configured: set CVR_API_URL (and CVR_API_TOKEN when the registry needs a key)';

/** A company as the national registry (or an enrichment source behind the same contract) knows it. */
export interface RegistryCompany {
  cvr: string;
  name: string;
  address: string | null;
  zip: string | null;
  city: string | null;
  phone: string | null;
  email: string | null;
  industry: string | null;
  employees: number | null;
  /** Present when the source knows them (enrichment sources); derived from the e-mail otherwise by callers. */
  website: string | null;
  logoUrl: string | null;
  profileUrl: string | null;
}

export type RegistryQuery = { cvr: string } | { name: string } | { search: string };

/** The company-registry port. `configured: false` answers not_configured on every search. */
export interface CompanyRegistry {
  readonly configured: boolean;
  /** The best match for the query, or null when the registry knows none. */
  find(query: RegistryQuery): Promise<RegistryCompany | null>;
}
