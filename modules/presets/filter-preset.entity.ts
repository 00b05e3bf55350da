import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import { sharingProps } from './sharing-props';

export type FilterMode = 'and' | 'or';

/** A saved set of list filters for one area of the UI (e.g. 'deals'), shared per `visibility`. */
export const FilterPreset = defineEntity({
  name: 'FilterPreset',
  tableName: 'filter_preset',
  indexes: workspaceIndexes('area'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    area: p.string().length(100).nullable(),
    columnFilters: p.json<unknown>().nullable(),
    filterTree: p.json<unknown>().nullable(),
    filterMode: p.string().length(3).$type<FilterMode>().default('and'),
    sorting: p.json<unknown>().nullable(),
    ...sharingProps,
  },
});
export type FilterPreset = InferEntity<typeof FilterPreset>;
