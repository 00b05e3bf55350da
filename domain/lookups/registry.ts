/** The company-registry port; its HTTP adapter is adapters/registry/cvr-registry.ts. */

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
