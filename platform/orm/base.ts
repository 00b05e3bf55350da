import { defineEntity } from '@mikro-orm/core';
import { newId } from '../ids';

const p = defineEntity.properties;

/** Primary key `_id` (24-hex object id, column `id`) and timestamps shared by every record. */
export const idProps = {
  _id: p
    .string()
    .primary()
    .length(24)
    .fieldName('id')
    .onCreate(() => newId()),
};

export const timestampProps = {
  createdAt: p.datetime().onCreate(() => new Date()),
  updatedAt: p
    .datetime()
    .onCreate(() => new Date())
    .onUpdate(() => new Date()),
};

/** Tenant-owned rows: not-null workspace column, guarded by the `tenant` filter (orm/tenant.ts). */
export const tenantProps = {
  ...idProps,
  workspaceId: p.string().length(24).index(),
  ...timestampProps,
};

export { p };

/**
 * Indexes that lead with the workspace (every tenant query filters by it), one per entry: a property name, or several
 * for a compound index. `workspaceIndexes('createdAt', ['flowId', 'stageId'])` is
 * `[{ properties: ['workspaceId', 'createdAt'] }, { properties: ['workspaceId', 'flowId', 'stageId'] }]`; the
 * entity still checks each name against its properties.
 */
export const workspaceIndexes = <const K extends string>(
  ...entries: (K | K[])[]
): { properties: ('workspaceId' | K)[] }[] =>
  entries.map((entry) => ({ properties: ['workspaceId', ...(Array.isArray(entry) ? entry : [entry])] }));
