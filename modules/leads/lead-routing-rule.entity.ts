import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { Condition } from './conditions';

export type RoutingAssignment = { type: 'user'; userId: string } | { type: 'round_robin'; userIds: string[] };

export const LeadRoutingRule = defineEntity({
  name: 'LeadRoutingRule',
  tableName: 'lead_routing_rule',
  uniques: [{ properties: ['workspaceId', 'name'] }],
  indexes: workspaceIndexes('sortOrder'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    description: p.string().length(1000).nullable(),
    conditions: p.json<Condition[]>().default([]),
    assignment: p.json<RoutingAssignment>(),
    isActive: p.boolean().default(true),
    sortOrder: p.integer().default(0),
    // Round-robin position: advanced atomically in SQL (see lead-routing.service.ts), never read-modify-write.
    rrCursor: p.integer().default(0),
  },
});
export type LeadRoutingRule = InferEntity<typeof LeadRoutingRule>;
