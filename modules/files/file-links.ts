import type { RefKind } from '../timeline';

/** Record kinds a file can be linked to (API name → reference kind). */
export const LINK_ENTITY_TYPES = {
  company: 'company',
  person: 'person',
  lead: 'lead',
  deal: 'deal',
  project: 'project',
  custom_object_record: 'customObjectRecord',
} as const satisfies Record<string, RefKind>;
export type LinkEntityType = keyof typeof LINK_ENTITY_TYPES;
