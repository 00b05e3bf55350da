import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { CloudProviderId } from '../../platform/ports/cloud-provider.port';
import type { LinkEntityType } from './file-links';

/** Where a file's bytes are: an object in our storage, or an item in a linked cloud drive. */
export const FILE_SOURCES = ['upload', 'cloud'] as const;
export type FileSource = (typeof FILE_SOURCES)[number];
export type StorageDriver = 'local' | 's3';

export interface CloudRef {
  provider: CloudProviderId;
  itemId: string;
  driveId: string | null;
  webUrl: string | null;
  path?: string | null;
  /** Last time a sync read the item at the provider; `missing` when the provider no longer has it. */
  checkedAt?: string | null;
  missing?: boolean;
}

export const StoredFile = defineEntity({
  name: 'StoredFile',
  tableName: 'file',
  indexes: workspaceIndexes('createdAt', 'folderId'),
  properties: {
    ...tenantProps,
    name: p.string().length(255),
    contentType: p.string().length(255),
    size: p.bigint('number'),
    sha256: p.string().length(64).nullable(),
    folderId: p.string().length(24).nullable(),
    source: p.string().length(10).$type<FileSource>(),
    /** `local` or `s3` for uploads; null for cloud items. */
    storage: p.string().length(10).$type<StorageDriver>().nullable(),
    storageKey: p.string().length(300).nullable(),
    cloud: p.json<CloudRef>().nullable(),
    uploadedBy: p.string().length(24),
  },
});
export type StoredFile = InferEntity<typeof StoredFile>;

export const FileLink = defineEntity({
  name: 'FileLink',
  tableName: 'file_link',
  indexes: workspaceIndexes(['entityType', 'entityId']),
  uniques: [{ properties: ['workspaceId', 'fileId', 'entityType', 'entityId'] }],
  properties: {
    ...tenantProps,
    fileId: p.string().length(24),
    entityType: p.string().length(30).$type<LinkEntityType>(),
    entityId: p.string().length(24),
    linkedBy: p.string().length(24),
  },
});
export type FileLink = InferEntity<typeof FileLink>;

export const Folder = defineEntity({
  name: 'Folder',
  tableName: 'folder',
  indexes: workspaceIndexes('parentId'),
  properties: {
    ...tenantProps,
    name: p.string().length(255),
    parentId: p.string().length(24).nullable(),
    createdBy: p.string().length(24),
  },
});
export type Folder = InferEntity<typeof Folder>;

/** Sync health of one provider in one workspace (GET /integrations); no credentials here. */
export const IntegrationSync = defineEntity({
  name: 'IntegrationSync',
  tableName: 'integration_sync',
  uniques: [{ properties: ['workspaceId', 'provider'] }],
  properties: {
    ...tenantProps,
    provider: p.string().length(40),
    status: p.string().length(10).$type<'ok' | 'failed'>(),
    lastSyncAt: p.datetime(),
    lastFullSyncAt: p.datetime().nullable(),
    lastSuccessAt: p.datetime().nullable(),
    lastError: p.string().length(500).nullable(),
    itemsChecked: p.integer().default(0),
    itemsMissing: p.integer().default(0),
  },
});
export type IntegrationSync = InferEntity<typeof IntegrationSync>;
