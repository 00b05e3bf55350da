import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { conflict, notFound, validation } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { deleteWithEvent } from '../../platform/shared/changes';
import { emit } from '../../platform/outbox/emit';
import { assertRefs, linkColumns, type RefKind } from '../timeline';
import { recordSystemActivity } from '../timeline';
import { findPage, likePattern, toPlain, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { FileView, FileWithUrlView } from './files.schemas';
import { createRecord } from '../../platform/shared/records';
import { FileLink, Folder, StoredFile } from './file.entity';
import { LINK_ENTITY_TYPES, type LinkEntityType } from './file-links';
import { receiveUpload, type IncomingUpload, type StagedUpload } from './receive-upload';
import { sanitizeFilename, sniffContentType } from './sniff';
import type { FileStorage, SignedUrl } from '../../platform/ports/storage.port';
import { getRecord } from '../../platform/shared/record-service';

/** What the file use cases need beyond the request: the storage adapter and the limits. */
export interface FileDeps {
  storage: FileStorage;
  maxBytes: number;
  urlTtlSeconds: number;
  log?: Logger;
}

export { LINK_ENTITY_TYPES, type LinkEntityType };

const STORED = [
  '_id',
  'name',
  'contentType',
  'size',
  'sha256',
  'folderId',
  'source',
  'storage',
  'uploadedBy',
  'createdAt',
  'updatedAt',
] as const;

export function serializeFile(file: StoredFile, links: FileLink[] = []): FileView {
  return {
    ...plainOf(file, STORED),
    cloud: file.cloud ?? null,
    links: links.map((l) => ({ entityType: l.entityType, entityId: l.entityId, linkedAt: l.createdAt.toISOString() })),
  };
}

const fileSummary = (file: StoredFile): Record<string, unknown> =>
  toPlain(file, ['_id', 'name', 'contentType', 'size', 'sha256', 'folderId', 'source']);

async function linksOf(ctx: Ctx, fileIds: string[]): Promise<Map<string, FileLink[]>> {
  const byFile = new Map<string, FileLink[]>();
  if (!fileIds.length) return byFile;
  for (const link of await ctx.em.find(
    FileLink,
    { fileId: { $in: fileIds } },
    { orderBy: { createdAt: 'asc', _id: 'asc' } },
  )) {
    byFile.set(link.fileId, [...(byFile.get(link.fileId) ?? []), link]);
  }
  return byFile;
}

export function loadFile(ctx: Ctx, id: string): Promise<StoredFile> {
  return getRecord(ctx, StoredFile, id, 'file');
}

export async function assertFolder(ctx: Ctx, field: string, folderId: string | null | undefined): Promise<void> {
  if (!folderId) return;
  if (!(await ctx.em.count(Folder, { _id: folderId }))) {
    throw validation(`${field}: no folder with id ${folderId}`, [
      { path: field, error: `no folder with id ${folderId}` },
    ]);
  }
}

const OBJECT_ID_RE = /^[0-9a-f]{24}$/;

/**
 * Receives one multipart upload into the storage's staging folder (413 over the limit, 400
 * malformed): the bytes are staged and checked (size, SHA-256, first bytes for the sniffed type)
 * before the store sees them. storeUpload stores and records it; a failed insert removes the object.
 */
export function stageUpload(deps: FileDeps, incoming: IncomingUpload): Promise<StagedUpload> {
  return receiveUpload(incoming, { maxBytes: deps.maxBytes, stagingDir: deps.storage.stagingDir() });
}

/**
 * What identifies an upload for an Idempotency-Key: the content (SHA-256, size), the part's file
 * name and the form fields; a retry that sends the same is replayed, anything else is a mismatch.
 */
export function uploadSummary(staged: StagedUpload): Record<string, unknown> {
  return { file: { sha256: staged.sha256, size: staged.size, filename: staged.filename }, fields: staged.fields };
}

/** Stores a staged upload and records the file; the caller discards the staged copy afterwards. */
export async function storeUpload(ctx: Ctx, deps: FileDeps, staged: StagedUpload): Promise<FileView> {
  const folderId = staged.fields.folderId?.trim() || null;
  if (folderId !== null && !OBJECT_ID_RE.test(folderId))
    throw validation('folderId: must be a 24-character hex id', [
      { path: 'folderId', error: 'must be a 24-character hex id' },
    ]);
  await assertFolder(ctx, 'folderId', folderId);
  const name = sanitizeFilename(staged.fields.name ?? staged.filename);
  const contentType = sniffContentType(staged.head, name);
  const file = createRecord(ctx, StoredFile, {
    name,
    contentType,
    size: staged.size,
    sha256: staged.sha256,
    folderId,
    source: 'upload',
    storage: deps.storage.driver,
    storageKey: '',
    cloud: null,
    uploadedBy: ctx.actor.userId,
  });
  file.storageKey = `${ctx.actor.workspaceId}/${file._id}`;
  await deps.storage.put(file.storageKey, { path: staged.path, size: staged.size, contentType });
  emit(ctx, { type: 'file_uploaded', entityType: 'file', entityId: file._id, payload: { file: fileSummary(file) } });
  try {
    await ctx.em.flush();
  } catch (err) {
    await deps.storage.delete(file.storageKey).catch(() => undefined);
    throw err;
  }
  return serializeFile(file);
}

export interface ListFilesQuery extends PageRequest {
  folderId?: string;
  q?: string;
  entityType?: LinkEntityType;
  entityId?: string;
  source?: 'upload' | 'cloud';
}

/** Newest first; `folderId=root` lists files outside any folder; entityType + entityId lists a record's files. */
export async function listFiles(ctx: Ctx, query: ListFilesQuery) {
  const where: Record<string, unknown> = {};
  if (query.folderId) where.folderId = query.folderId === 'root' ? null : query.folderId;
  if (query.q) where.name = { $ilike: likePattern(query.q) };
  if (query.source) where.source = query.source;
  if (query.entityType && query.entityId) {
    const links = await ctx.em.find(
      FileLink,
      { entityType: query.entityType, entityId: query.entityId },
      { fields: ['fileId'] },
    );
    where._id = { $in: links.map((l) => l.fileId) };
  }
  const { items, total } = await findPage(ctx.em, StoredFile, where, query, { createdAt: 'desc' });
  const links = await linksOf(
    ctx,
    items.map((f) => f._id),
  );
  return { items: items.map((f) => serializeFile(f, links.get(f._id))), total };
}

/** Uploads carry a signed download URL that expires; cloud items link to the provider's page. */
export async function getFile(ctx: Ctx, deps: FileDeps, id: string): Promise<FileWithUrlView> {
  const file = await loadFile(ctx, id);
  const links = await linksOf(ctx, [file._id]);
  let download: SignedUrl | null = null;
  if (file.source === 'upload' && file.storageKey) {
    download = await deps.storage.downloadUrl(file.storageKey, {
      filename: file.name,
      contentType: file.contentType,
      ttlSeconds: deps.urlTtlSeconds,
    });
  }
  return {
    ...serializeFile(file, links.get(file._id)),
    downloadUrl: download?.url ?? file.cloud?.webUrl ?? null,
    downloadUrlExpiresAt: download?.expiresAt.toISOString() ?? null,
  };
}

/** Removes the stored object first (idempotent), then the row and its links: a retry finishes a half-done delete. */
export async function deleteFile(ctx: Ctx, deps: FileDeps, id: string): Promise<void> {
  const file = await loadFile(ctx, id);
  if (file.source === 'upload' && file.storageKey) await deps.storage.delete(file.storageKey);
  const links = await ctx.em.find(FileLink, { fileId: file._id });
  for (const link of links) ctx.em.remove(link);
  await deleteWithEvent(ctx, file, { type: 'file_deleted', entityType: 'file', payload: { file: fileSummary(file) } });
}

function timelineLink(entityType: LinkEntityType, entityId: string) {
  return { ...linkColumns(LINK_ENTITY_TYPES[entityType], entityId), entityType, entityId };
}

/**
 * Links a file to a record of the workspace; the record's activity feed gets a `file_linked` row. Linking twice is 409.
 */
export async function linkFile(
  ctx: Ctx,
  id: string,
  input: { entityType: LinkEntityType; entityId: string },
): Promise<FileView> {
  const file = await loadFile(ctx, id);
  await assertRefs(ctx, [{ field: 'entityId', kind: LINK_ENTITY_TYPES[input.entityType], id: input.entityId }]);
  if (await ctx.em.count(FileLink, { fileId: file._id, entityType: input.entityType, entityId: input.entityId })) {
    throw conflict(`the file is already linked to this ${input.entityType.replace(/_/g, ' ')}`);
  }
  createRecord(ctx, FileLink, {
    fileId: file._id,
    entityType: input.entityType,
    entityId: input.entityId,
    linkedBy: ctx.actor.userId,
  });
  recordSystemActivity(
    ctx,
    timelineLink(input.entityType, input.entityId),
    'file_linked',
    `File linked: ${file.name}`,
    { fileId: file._id, name: file.name, contentType: file.contentType, size: file.size },
  );
  emit(ctx, {
    type: 'file_linked',
    entityType: 'file',
    entityId: file._id,
    payload: { file: fileSummary(file), entityType: input.entityType, entityId: input.entityId },
  });
  try {
    await ctx.em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException)
      throw conflict(`the file is already linked to this ${input.entityType.replace(/_/g, ' ')}`);
    throw err;
  }
  const links = await linksOf(ctx, [file._id]);
  return serializeFile(file, links.get(file._id));
}

/** Removes a link (404 when there is none); the record's feed gets a `file_unlinked` row. */
export async function unlinkFile(
  ctx: Ctx,
  id: string,
  input: { entityType: LinkEntityType; entityId: string },
): Promise<FileView> {
  const file = await loadFile(ctx, id);
  const link = await ctx.em.findOne(FileLink, {
    fileId: file._id,
    entityType: input.entityType,
    entityId: input.entityId,
  });
  if (!link) throw notFound('file link');
  ctx.em.remove(link);
  recordSystemActivity(
    ctx,
    timelineLink(input.entityType, input.entityId),
    'file_unlinked',
    `File unlinked: ${file.name}`,
    { fileId: file._id, name: file.name },
  );
  emit(ctx, {
    type: 'file_unlinked',
    entityType: 'file',
    entityId: file._id,
    payload: { file: fileSummary(file), entityType: input.entityType, entityId: input.entityId },
  });
  await ctx.em.flush();
  const links = await linksOf(ctx, [file._id]);
  return serializeFile(file, links.get(file._id));
}
