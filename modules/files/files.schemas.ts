import { z } from 'zod';
import { LINK_ENTITY_TYPES } from './file-links';
import { pageParams } from '../../platform/shared/list-query';
import { objectId } from '../../platform/shared/schemas';
import { dateTimeView, idView, recordViewFields } from '../../platform/shared/views';
import { FILE_SOURCES } from './file.entity';
import { CLOUD_PROVIDERS } from '../../platform/ports/cloud-provider.port';
import { ref } from '../../platform/references/refs';

const ENTITY_TYPES = Object.keys(LINK_ENTITY_TYPES) as [
  keyof typeof LINK_ENTITY_TYPES,
  ...(keyof typeof LINK_ENTITY_TYPES)[],
];
const entityType = z.preprocess(
  // customObjectRecord is accepted as the camel-case spelling of custom_object_record.
  (v) => (v === 'customObjectRecord' ? 'custom_object_record' : v),
  z.enum(ENTITY_TYPES, { message: `must be one of ${ENTITY_TYPES.join(', ')}` }),
);
const folderRef = z.union([z.literal('root'), objectId], { message: 'must be a 24-character hex id or "root"' });

export const listFilesQuery = z
  .object({
    ...pageParams(100),
    folderId: folderRef.optional(),
    q: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
    source: z.enum(['upload', 'cloud'], { message: 'must be upload or cloud' }).optional(),
    entityType: entityType.optional(),
    entityId: objectId.optional(),
  })
  .superRefine((q, ctx) => {
    if (Boolean(q.entityType) !== Boolean(q.entityId))
      ctx.addIssue({
        code: 'custom',
        path: [q.entityType ? 'entityId' : 'entityType'],
        message: 'entityType and entityId go together',
      });
  });

export const fileLinkBody = z.object({ entityType, entityId: objectId });

export const listFoldersQuery = z.object({
  ...pageParams(100),
  parentId: folderRef.optional(),
  q: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
});

export const createFolderBody = z.object({
  name: z.string({ message: 'is required' }).trim().min(1, 'is required').max(255, 'must be at most 255 characters'),
  parentId: ref('folder', objectId).nullable().optional(),
});

const provider = z.enum(['onedrive', 'google_drive'], { message: 'must be onedrive or google_drive' });
const bool = z.enum(['true', 'false'], { message: 'must be true or false' }).transform((v) => v === 'true');
const providerId = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(500, 'must be at most 500 characters')
  .regex(/^[\w!.:~=+-]+$/, 'contains characters a provider id never has');

export const cloudAccountsQuery = z.object({ ...pageParams(100) });

export const cloudBrowseQuery = z.object({
  ...pageParams(100),
  provider: provider.optional(),
  parentId: providerId.optional(),
  driveId: providerId.optional(),
  query: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
  recent: bool.optional(),
  roots: bool.optional(),
  withPath: bool.optional(),
});

const linkTarget = {
  provider: provider.optional(),
  driveId: providerId.optional(),
  folderId: ref('folder', objectId).nullable().optional(),
  entityType: entityType.optional(),
  entityId: objectId.optional(),
};
const bothOrNeither = (v: { entityType?: unknown; entityId?: unknown }, ctx: z.RefinementCtx): void => {
  if (Boolean(v.entityType) !== Boolean(v.entityId))
    ctx.addIssue({
      code: 'custom',
      path: [v.entityType ? 'entityId' : 'entityType'],
      message: 'entityType and entityId go together',
    });
};

export const cloudLinkBody = z.object({ itemId: providerId, ...linkTarget }).superRefine(bothOrNeither);

export const cloudCreateBody = z
  .object({
    name: z
      .string({ message: 'is required' })
      .trim()
      .min(1, 'is required')
      .max(255, 'must be at most 255 characters')
      .regex(/^[^\\/:*?"<>|\u0000-\u001f]+$/, 'must not contain \\ / : * ? " < > | or control characters'),
    kind: z.enum(['folder', 'document', 'spreadsheet', 'presentation', 'file'], {
      message: 'must be one of folder, document, spreadsheet, presentation, file',
    }),
    parentId: providerId.optional(),
    ...linkTarget,
  })
  .superRefine(bothOrNeither);

export const integrationsQuery = z.object({ ...pageParams(100) });
export const syncBody = z.object({ fullSync: z.boolean({ message: 'must be a boolean' }).default(false) });

// ---- Views (response schemas) ----

export const fileLinkView = z.object({
  entityType: z.enum(ENTITY_TYPES),
  entityId: idView,
  linkedAt: dateTimeView,
});

export const cloudRefView = z
  .object({
    provider: z.enum(CLOUD_PROVIDERS),
    itemId: z.string().describe("the provider's item id"),
    driveId: z.string().nullable(),
    webUrl: z.string().nullable().describe("the item's page at the provider"),
    path: z.string().nullable().optional().describe('folder path inside its drive'),
    checkedAt: dateTimeView.nullable().optional().describe('last time a sync read the item at the provider'),
    missing: z.boolean().optional().describe('true when the provider no longer has the item'),
  })
  .describe('where a cloud file lives (source cloud)');

export const fileView = z.object({
  ...recordViewFields,
  name: z.string(),
  contentType: z.string().describe('sniffed from the bytes (uploads) or given by the provider (cloud)'),
  size: z.number().int().describe('bytes'),
  sha256: z.string().nullable().describe('hex SHA-256 of an upload (null for cloud files)'),
  folderId: idView.nullable(),
  source: z.enum(FILE_SOURCES),
  storage: z.enum(['local', 's3']).nullable().describe('storage driver of an upload (null for cloud files)'),
  uploadedBy: idView.describe('user id'),
  cloud: cloudRefView.nullable(),
  links: z.array(fileLinkView).describe('records the file is linked to'),
});
export type FileView = z.infer<typeof fileView>;

export const fileWithUrlView = fileView.extend({
  downloadUrl: z
    .string()
    .nullable()
    .describe("signed download URL of an upload, or the cloud item's page; null when there is none"),
  downloadUrlExpiresAt: dateTimeView.nullable().describe('when the signed URL expires (null for cloud files)'),
});
export type FileWithUrlView = z.infer<typeof fileWithUrlView>;

export const folderView = z.object({
  ...recordViewFields,
  name: z.string(),
  parentId: idView.nullable().describe('null at the top level'),
  createdBy: idView.describe('user id'),
  fileCount: z.number().int().describe('files directly in the folder'),
  folderCount: z.number().int().describe('folders directly in the folder'),
});
export type FolderView = z.infer<typeof folderView>;

export const signedUploadView = z.object({
  ok: z.literal(true),
  key: z.string().describe('storage key the bytes were written to'),
  size: z.number().int().describe('bytes received'),
});
export type SignedUploadView = z.infer<typeof signedUploadView>;

export const cloudAccountView = z.object({
  provider: z.enum(CLOUD_PROVIDERS),
  accountId: z.string().nullable().describe('null when the provider could not be reached'),
  displayName: z.string().nullable(),
  email: z.string().nullable(),
  label: z.string().describe('provider name, e.g. Google Drive'),
  status: z.enum(['connected', 'error']),
  error: z.string().optional().describe('why the account could not be read (status error)'),
});
export type CloudAccountView = z.infer<typeof cloudAccountView>;

export const cloudItemView = z.object({
  provider: z.enum(CLOUD_PROVIDERS),
  id: z.string(),
  driveId: z.string().nullable(),
  parentId: z.string().nullable(),
  name: z.string(),
  kind: z.enum(['drive', 'folder', 'file']),
  mimeType: z.string().nullable(),
  size: z.number().nullable(),
  modifiedAt: z.string().nullable().describe('ISO 8601 date-time from the provider'),
  webUrl: z.string().nullable(),
  path: z.string().nullable().optional().describe('folder path inside its drive (withPath=true)'),
});
export type CloudItemView = z.infer<typeof cloudItemView>;

export const cloudCreateView = z.object({
  item: cloudItemView.describe('what the provider created'),
  file: fileView.nullable().describe('the workspace file recorded for a document (null for a folder)'),
});
export type CloudCreateView = z.infer<typeof cloudCreateView>;
