import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { ConditionOperator, ConditionValue } from './conditions';

export const LeadScoringRule = defineEntity({
  name: 'LeadScoringRule',
  tableName: 'lead_scoring_rule',
  uniques: [{ properties: ['workspaceId', 'name'] }],
  indexes: workspaceIndexes('sortOrder'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    description: p.string().length(1000).nullable(),
    field: p.string().length(120),
    condition: p.string().length(20).$type<ConditionOperator>(),
    value: p.json<ConditionValue>().nullable(),
    points: p.integer(),
    isActive: p.boolean().default(true),
    sortOrder: p.integer().default(0),
  },
});
export type LeadScoringRule = InferEntity<typeof LeadScoringRule>;
