// Custom Temporal search attributes, registered on every server we run (dev server flags,
// docker-compose `temporal-setup`). Pure data: workflow code may import it.
// Values are ids and enum-like strings only, never personal data.

export const CRM_SEARCH_ATTRIBUTES = [
  { name: 'CrmWorkspaceId', type: 'Keyword' },
  { name: 'CrmAutomationId', type: 'Keyword' },
  { name: 'CrmSequenceId', type: 'Keyword' },
  { name: 'CrmEntityType', type: 'Keyword' },
  { name: 'CrmEntityId', type: 'Keyword' },
  { name: 'CrmTriggerType', type: 'Keyword' },
] as const;

export type CrmSearchAttributeName = (typeof CRM_SEARCH_ATTRIBUTES)[number]['name'];

/** Names only, e.g. for `defineSearchAttributeKey(name, SearchAttributeType.KEYWORD)`. */
export const CRM_SEARCH_ATTRIBUTE_NAMES: readonly CrmSearchAttributeName[] = CRM_SEARCH_ATTRIBUTES.map(
  (attribute) => attribute.name,
);

/** `--search-attribute NAME=Type` arguments for `temporal server start-dev`. */
export function searchAttributeCliArgs(): string[] {
  return CRM_SEARCH_ATTRIBUTES.flatMap((attribute) => ['--search-attribute', `${attribute.name}=${attribute.type}`]);
}
