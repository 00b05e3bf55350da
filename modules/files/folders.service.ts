import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { conflict, validation } from '../../platform/errors';
import { createdEvent, deleteWithEvent } from '../../platform/shared/changes';
import { emit } from '../../platform/outbox/emit';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { FolderView } from './files.schemas';
import { createRecord } from '../../platform/shared/records';
import { Folder, StoredFile } from './file.entity';
import { sanitizeFilename } from './sniff';
import { getRecord } from '../../platform/shared/record-service';

const KEYS = ['_id', 'name', 'parentId', 'createdBy', 'createdAt', 'updatedAt'] as const;
/** The folder record without its counts (event payloads). */
const folderRecord = (folder: Folder) => plainOf(folder, KEYS);

/** The folder as the API shows it: the record with what it holds. */
export const serializeFolder = (folder: Folder, counts: { files: number; folders: number }): FolderView => ({
  ...folderRecord(folder),
  fileCount: counts.files,
  folderCount: counts.folders,
});

const NO_CONTENT = { files: 0, folders: 0 };

/** Maximum nesting: a deeper tree is refused rather than walked without bound. */
export const MAX_FOLDER_DEPTH = 20;

export interface ListFoldersQuery extends PageRequest {
  parentId?: string;
  q?: string;
}

/** Name order; `parentId=root` lists top-level folders, a folder id its children; none lists all. */
export async function listFolders(ctx: Ctx, query: ListFoldersQuery) {
  const where: Record<string, unknown> = {};
  if (query.parentId) where.parentId = query.parentId === 'root' ? null : query.parentId;
  if (query.q) where.name = { $ilike: `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` };
  const { items, total } = await findPage(ctx.em, Folder, where, query, { name: 'asc' });
  const counts = await contentCounts(
    ctx,
    items.map((f) => f._id),
  );
  return { items: items.map((f) => serializeFolder(f, counts.get(f._id) ?? NO_CONTENT)), total };
}

async function contentCounts(ctx: Ctx, ids: string[]): Promise<Map<string, { files: number; folders: number }>> {
  const out = new Map(ids.map((id) => [id, { files: 0, folders: 0 }]));
  if (!ids.length) return out;
  const rows = await ctx.em.execute<{ id: string; files: number; folders: number }[]>(
    `select f.id,
            (select count(*)::int from file x where x.workspace_id = f.workspace_id and x.folder_id = f.id) as files,
            (select count(*)::int from folder c where c.workspace_id = f.workspace_id and c.parent_id = f.id) as folders
       from folder f where f.workspace_id = ? and f.id in (${ids.map(() => '?').join(',')})`,
    [ctx.actor.workspaceId, ...ids],
  );
  for (const row of rows) out.set(row.id, { files: row.files, folders: row.folders });
  return out;
}

async function depthOf(ctx: Ctx, folderId: string): Promise<number> {
  const [row] = await ctx.em.execute<{ depth: number }[]>(
    `with recursive up(id, parent_id, depth) as (
       select id, parent_id, 1 from folder where workspace_id = ? and id = ?
       union all
       select f.id, f.parent_id, up.depth + 1 from folder f join up on f.id = up.parent_id where f.workspace_id = ? and up.depth < ?
     ) select max(depth)::int as depth from up`,
    [ctx.actor.workspaceId, folderId, ctx.actor.workspaceId, MAX_FOLDER_DEPTH + 1],
  );
  return row?.depth ?? 0;
}

/** Sibling names are unique (case-insensitive, 409); the parent must be a folder of the workspace. */
export async function createFolder(ctx: Ctx, input: { name: string; parentId?: string | null }): Promise<FolderView> {
  const parentId = input.parentId || null;
  if (parentId) {
    if (!(await ctx.em.count(Folder, { _id: parentId })))
      throw validation(`parentId: no folder with id ${parentId}`, [
        { path: 'parentId', error: `no folder with id ${parentId}` },
      ]);
    if ((await depthOf(ctx, parentId)) >= MAX_FOLDER_DEPTH)
      throw validation(`parentId: folders nest at most ${MAX_FOLDER_DEPTH} levels deep`, [
        { path: 'parentId', error: 'too deep' },
      ]);
  }
  const name = sanitizeFilename(input.name);
  const folder = createRecord(ctx, Folder, { name, parentId, createdBy: ctx.actor.userId });
  emit(ctx, { ...createdEvent('folder', { folder: folderRecord(folder) }), entityId: folder._id });
  try {
    await ctx.em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException)
      throw conflict(`a folder named "${name}" already exists here`);
    throw err;
  }
  return serializeFolder(folder, NO_CONTENT);
}

/** Only an empty folder is deleted: one holding files or folders is 409 (move or delete them first). */
export async function deleteFolder(ctx: Ctx, id: string): Promise<void> {
  const folder = await getRecord(ctx, Folder, id, 'folder');
  const [files, folders] = await Promise.all([
    ctx.em.count(StoredFile, { folderId: id }),
    ctx.em.count(Folder, { parentId: id }),
  ]);
  if (files || folders)
    throw conflict(`the folder is not empty (${files} files, ${folders} folders); move or delete them first`);
  await deleteWithEvent(ctx, folder, {
    type: 'folder_deleted',
    entityType: 'folder',
    payload: { folder: folderRecord(folder) },
  });
}

export async function getFolder(ctx: Ctx, id: string): Promise<FolderView> {
  const folder = await getRecord(ctx, Folder, id, 'folder');
  const counts = await contentCounts(ctx, [id]);
  return serializeFolder(folder, counts.get(id) ?? NO_CONTENT);
}
