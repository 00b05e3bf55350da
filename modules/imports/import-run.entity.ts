import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import { RECORD_TYPES } from '../../platform/shared/record-types';

export const IMPORT_ENTITY_TYPES = RECORD_TYPES;
export type ImportEntityType = (typeof IMPORT_ENTITY_TYPES)[number];
/** What a run imported: a native type, or the records of one custom object. */
export type ImportRunEntityType = ImportEntityType | 'custom_object';
export type Dedupe = 'skip' | 'update' | 'none';

export interface RowError {
  row: number;
  errors: { path: string; error: string }[];
}

/**
 * One import request. Written when the run starts (finishedAt null) and completed at the end, so
 * a run cut short by a crash stays visible in the history.
 */
export const ImportRun = defineEntity({
  name: 'ImportRun',
  tableName: 'import_run',
  indexes: workspaceIndexes('startedAt'),
  properties: {
    ...tenantProps,
    entityType: p.string().length(20).$type<ImportRunEntityType>(),
    dedupe: p.string().length(10).$type<Dedupe>(),
    total: p.integer(),
    created: p.integer().default(0),
    updated: p.integer().default(0),
    skipped: p.integer().default(0),
    failed: p.integer().default(0),
    /** The first 100 row errors; the response of the import itself lists all of them. */
    errors: p.json<RowError[]>().default([]),
    userId: p.string().length(24).nullable(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
});
export type ImportRun = InferEntity<typeof ImportRun>;
