import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { FieldOption, FieldType, RollupSpec } from './field-types';
import type { RecordType } from '../../platform/shared/record-types';

/** A workspace-defined object type; `slug` addresses it in URLs and is unique per workspace. */
export const CustomObject = defineEntity({
  name: 'CustomObject',
  tableName: 'custom_object',
  uniques: [{ properties: ['workspaceId', 'slug'] }],
  properties: {
    ...tenantProps,
    slug: p.string().length(63),
    singular: p.string().length(100),
    plural: p.string().length(100),
    description: p.text().nullable(),
    icon: p.string().length(100).nullable(),
    color: p.string().length(7).nullable(),
    useAccentNavIcon: p.boolean().default(false),
    searchable: p.boolean().default(true),
    showInSidebar: p.boolean().default(true),
    titleField: p.string().length(63).nullable(),
    favoriteFieldKeys: p.array().default([]),
    searchableFields: p.array().default([]),
    views: p.json<unknown>().nullable(),
    piiFields: p.array().default([]),
    /** Last record number handed out (incremented atomically). */
    lastRecordNumber: p.integer().default(0),
    createdBy: p.string().length(24),
  },
});
export type CustomObject = InferEntity<typeof CustomObject>;

export const CustomObjectField = defineEntity({
  name: 'CustomObjectField',
  tableName: 'custom_object_field',
  uniques: [{ properties: ['objectId', 'slug'] }],
  properties: {
    ...tenantProps,
    objectId: p.string().length(24).index(),
    slug: p.string().length(63),
    label: p.string().length(200),
    type: p.string().length(20).$type<FieldType>(),
    isRequired: p.boolean().default(false),
    isUnique: p.boolean().default(false),
    options: p.json<FieldOption[]>().default([]),
    referenceType: p.string().length(10).$type<'custom' | 'native'>().nullable(),
    referenceObject: p.string().length(63).nullable(),
    nativeEntity: p.string().length(20).$type<RecordType>().nullable(),
    order: p.integer().default(0),
    /** Formula fields: the arithmetic expression over number/currency field slugs. */
    expression: p.text().nullable(),
    /** Rollup fields: what is aggregated (rollup.ts). */
    rollup: p.json<RollupSpec>().nullable(),
  },
});
export type CustomObjectField = InferEntity<typeof CustomObjectField>;

export const CustomObjectRecord = defineEntity({
  name: 'CustomObjectRecord',
  tableName: 'custom_object_record',
  uniques: [{ properties: ['objectId', 'recordNumber'] }],
  indexes: workspaceIndexes(['objectId', 'createdAt']),
  properties: {
    ...tenantProps,
    objectId: p.string().length(24),
    recordNumber: p.integer(),
    data: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    avatar: p.string().length(2048).nullable(),
    createdBy: p.string().length(24),
    updatedBy: p.string().length(24),
  },
});
export type CustomObjectRecord = InferEntity<typeof CustomObjectRecord>;
