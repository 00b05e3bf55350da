import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../../platform/orm/base';

/** Lookup changeDetection: the watched values of a record as one lookup node last saw them. */
export const AutomationLookupSnapshot = defineEntity({
  name: 'AutomationLookupSnapshot',
  tableName: 'automation_lookup_snapshot',
  uniques: [{ properties: ['automationId', 'nodeId', 'recordId'] }],
  properties: {
    ...tenantProps,
    automationId: p.string().length(24),
    nodeId: p.string().length(100),
    recordId: p.string().length(64),
    values: p.json<Record<string, unknown>>(),
  },
});
export type AutomationLookupSnapshot = InferEntity<typeof AutomationLookupSnapshot>;
