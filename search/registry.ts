import type { AnyDefinition } from './types/definition';
import { companySearch } from './types/company';
import { dealSearch } from './types/deal';
import { leadSearch } from './types/lead';
import { personSearch } from './types/person';
import { taskSearch } from './types/task';
import { projectSearch } from './types/project';
import { customObjectRecordSearch } from './types/custom-object-record';
import { offerSearch } from './types/offer';
import { supportTicketSearch } from './types/support-ticket';

/** Every type the spec names for `GET /search`; the ones without a definition are not searchable yet. */
export const SPEC_SEARCH_TYPES = [
  'company',
  'person',
  'lead',
  'deal',
  'support-ticket',
  'project',
  'offer',
  'task',
] as const;

// Adding a type = one file in search/types/ plus one entry here (in the order results are listed), and its name in
// the `search` of its entity's resource manifest: test/unit/resources.test.ts fails for a definition no manifest
// names, or the reverse (the manifests are registered at run time, platform/resources.ts: no filter here).
export const SEARCH_DEFINITIONS: readonly AnyDefinition[] = [
  companySearch,
  personSearch,
  leadSearch,
  dealSearch,
  supportTicketSearch,
  projectSearch,
  offerSearch,
  taskSearch,
  customObjectRecordSearch,
];

/** Types `GET /search` answers for. */
export const SEARCH_TYPES: readonly string[] = SEARCH_DEFINITIONS.filter((d) => !d.standalone).map((d) => d.type);
/** Every indexed type (also the standalone ones with their own endpoint): what reindex and freshness cover. */
export const INDEXED_TYPES: readonly string[] = SEARCH_DEFINITIONS.map((d) => d.type);

export function definitionOf(type: string): AnyDefinition {
  const def = SEARCH_DEFINITIONS.find((d) => d.type === type);
  if (!def) throw new Error(`search type "${type}" is not registered`);
  return def;
}

export const isSearchType = (type: string): boolean => SEARCH_TYPES.includes(type);

/** Index uid of a type: `${prefix}${type}` (prefix from MEILI_INDEX_PREFIX, default crm_). */
export const indexUid = (prefix: string, type: string): string => `${prefix}${type}`;

/** Types whose documents show a title of `type` (through a reference), with that reference. */
export function dependentsOf(
  type: string,
): Array<{ def: AnyDefinition; reference: NonNullable<AnyDefinition['references']>[number] }> {
  return SEARCH_DEFINITIONS.flatMap((def) =>
    (def.references ?? []).filter((r) => r.type === type).map((reference) => ({ def, reference })),
  );
}
