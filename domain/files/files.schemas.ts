import { z } from 'zod';
import { LINK_ENTITY_TYPES } from './files.service';
import { pageParams } from '../shared/list-query';
import { objectId } from '../shared/schemas';

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
  parentId: objectId.nullable().optional(),
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
  folderId: objectId.nullable().optional(),
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
