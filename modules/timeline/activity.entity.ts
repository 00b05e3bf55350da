import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

// One timeline row. `system` rows (record created, field changes, task created/completed) are
// record history: they appear in activity feeds; `/activities` lists only non-system rows.
// noteRef/callRef/taskRef point at the record a row mirrors, so writes to it keep the row in sync.
export const Activity = defineEntity({
  name: 'Activity',
  tableName: 'activity',
  indexes: workspaceIndexes(
    ['companyId', 'date'],
    ['personId', 'date'],
    ['dealId', 'date'],
    ['leadId', 'date'],
    ['entityType', 'entityId', 'date'],
    ['system', 'date'],
    'noteRef',
    'callRef',
  ),
  properties: {
    ...tenantProps,
    type: p.string().length(60),
    system: p.boolean().default(false),
    summary: p.string().length(1000).nullable(),
    description: p.text().nullable(),
    companyId: p.string().length(24).nullable(),
    personId: p.string().length(24).nullable(),
    dealId: p.string().length(24).nullable(),
    leadId: p.string().length(24).nullable(),
    entityType: p.string().length(40).nullable(),
    entityId: p.string().length(64).nullable(),
    noteRef: p.string().length(24).nullable(),
    callRef: p.string().length(24).nullable(),
    taskRef: p.string().length(24).nullable(),
    date: p.datetime(),
    metadata: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    /** Who recorded the row (the API key's user). */
    userId: p.string().length(24).nullable(),
    /** Whose activity it is (filter `ownerId`); defaults to the recorder. */
    ownerId: p.string().length(24).nullable(),
  },
});
export type Activity = InferEntity<typeof Activity>;
