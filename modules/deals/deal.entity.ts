import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export type DealStatus = 'open' | 'won' | 'lost';
export type DealPriority = 'low' | 'medium' | 'high';

export const Deal = defineEntity({
  name: 'Deal',
  tableName: 'deal',
  indexes: workspaceIndexes(
    'company',
    'personRef',
    'updatedAt',
    'createdAt',
    ['flowId', 'stageId'],
    'stageId',
    'ownerId',
  ),
  properties: {
    ...tenantProps,
    title: p.string().length(500),
    value: p.double().$type<number>().nullable(),
    flowId: p.string().length(24).nullable(),
    stageId: p.string().length(64).nullable(),
    priority: p.string().length(10).$type<DealPriority>().nullable(),
    probability: p.double().$type<number>().nullable(),
    company: p.string().length(24).nullable(),
    personRef: p.string().length(24).nullable(),
    leadRef: p.string().length(24).nullable(),
    customFields: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    tags: p.array().default([]),
    status: p.string().length(10).$type<DealStatus>().default('open'),
    wonDate: p.datetime().nullable(),
    lostDate: p.datetime().nullable(),
    ownerId: p.string().length(24).nullable(),
  },
});
export type Deal = InferEntity<typeof Deal>;
