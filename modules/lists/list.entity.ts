import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import { RECORD_TYPES } from '../../platform/shared/record-types';

export const LIST_ENTITY_TYPES = RECORD_TYPES;
export type ListEntityType = (typeof LIST_ENTITY_TYPES)[number];

/** A static list of records of one entity type (e.g. "Conference leads 2026"). */
export const List = defineEntity({
  name: 'List',
  tableName: 'list',
  indexes: workspaceIndexes('entityType'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    entityType: p.string().length(20).$type<ListEntityType>(),
    description: p.string().length(2000).nullable(),
    ownerId: p.string().length(24).nullable(),
  },
});
export type List = InferEntity<typeof List>;

export const ListItem = defineEntity({
  name: 'ListItem',
  tableName: 'list_item',
  uniques: [{ properties: ['workspaceId', 'listId', 'entityId'] }],
  indexes: workspaceIndexes(['listId', 'addedAt'], 'entityId'),
  properties: {
    ...tenantProps,
    listId: p.string().length(24),
    entityType: p.string().length(20).$type<ListEntityType>(),
    entityId: p.string().length(24),
    addedAt: p.datetime(),
    addedBy: p.string().length(24).nullable(),
  },
});
export type ListItem = InferEntity<typeof ListItem>;
