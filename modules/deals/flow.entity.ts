import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export type StageType = 'open' | 'won' | 'lost';
export const STAGE_TYPES: readonly StageType[] = ['open', 'won', 'lost'];

/** A pipeline. At most one default flow per workspace (partial unique index). */
export const Flow = defineEntity({
  name: 'Flow',
  tableName: 'flow',
  uniques: [
    {
      name: 'flow_one_default_per_workspace',
      expression: 'create unique index "flow_one_default_per_workspace" on "flow" ("workspace_id") where "is_default"',
    },
  ],
  properties: {
    ...tenantProps,
    title: p.string().length(200),
    description: p.text().nullable(),
    isDefault: p.boolean().default(false),
  },
});
export type Flow = InferEntity<typeof Flow>;

/**
 * A stage of a flow, one row each so concurrent stage edits never overwrite each other.
 * `type` won/lost marks stages that close a deal; `_id` is the stage id deals point to.
 */
export const FlowStage = defineEntity({
  name: 'FlowStage',
  tableName: 'flow_stage',
  indexes: workspaceIndexes(['flowId', 'order']),
  properties: {
    ...tenantProps,
    flowId: p.string().length(24),
    title: p.string().length(200),
    order: p.double().$type<number>(),
    type: p.string().length(10).$type<StageType>().default('open'),
    probability: p.double().$type<number>().nullable(),
  },
});
export type FlowStage = InferEntity<typeof FlowStage>;
