import type { EntityManager } from '@mikro-orm/postgresql';
import type { MeiliSearch } from 'meilisearch';
import { notFound } from '../platform/errors';
import { forkForWorkspace } from '../platform/orm/tenant';
import { toClaimed, type OutboxRow } from '../platform/outbox/outbox.sql';
import { Workspace } from '../modules/workspaces';
import { documentChunks } from './documents';
import { workspaceFilter } from './query';
import { definitionOf, indexUid, INDEXED_TYPES } from './registry';
import { ensureIndex, ensureIndexes, SETTINGS_WAIT } from './settings';
import { applyTargets, collectTargets, type SyncDeps } from './sync';
import type { AnyDefinition } from './types/definition';

export interface ReindexProgress {
  type: string;
  phase: 'load' | 'index' | 'catch-up';
  done: number;
  total: number;
}

export interface ReindexOptions {
  /** Root entity manager; reads go through forks bound to one workspace at a time. */
  em: EntityManager;
  client: MeiliSearch;
  prefix: string;
  /** Default: every registered type. */
  types?: readonly string[];
  /** Rebuild only this workspace's documents, in place; default: every workspace, through a swap. */
  workspaceId?: string;
  batchSize?: number;
  /** Awaited: a caller may pause the rebuild at a phase (tests use it to write during a rebuild). */
  onProgress?: (p: ReindexProgress) => void | Promise<void>;
}

export interface ReindexResult {
  type: string;
  index: string;
  mode: 'swap' | 'workspace';
  documents: number;
  deleted: number;
  caughtUp: number;
  ms: number;
}

// Events are appended before their transaction commits: look this far behind the start so a
// write that committed during the load is re-synced after it.
const CATCH_UP_MARGIN_MS = 60_000;
const WAIT = { timeout: 10 * 60_000, interval: 100 };

/** Workspaces with rows of this type (only those cost queries on a full rebuild). */
async function workspacesWithRows(em: EntityManager, def: AnyDefinition): Promise<string[]> {
  const meta = em.getMetadata().get(def.entity.meta.className);
  const column = meta.properties.workspaceId.fieldNames[0];
  const rows = await em
    .getConnection()
    .execute<{ ws: string }[]>(`select distinct ${column} as ws from ${meta.tableName} order by 1`);
  return rows.map((r) => r.ws);
}

async function countRows(em: EntityManager, def: AnyDefinition, workspaceIds: string[]): Promise<number> {
  let total = 0;
  for (const ws of workspaceIds) total += await forkForWorkspace(em, ws).count(def.entity, {});
  return total;
}

async function waitAll(
  client: MeiliSearch,
  uids: number[],
  onDone: (n: number) => void | Promise<void>,
): Promise<void> {
  let done = 0;
  for await (const task of client.tasks.waitForTasksIter(uids, WAIT)) {
    if (task.status !== 'succeeded')
      throw new Error(
        `indexing task ${task.uid} on ${task.indexUid}: ${task.status} ${task.error?.message ?? ''}`.trim(),
      );
    await onDone(++done);
  }
}

/** Loads every document of the workspaces into `uid`; returns the ids written. */
async function load(
  opts: ReindexOptions,
  def: AnyDefinition,
  uid: string,
  workspaceIds: string[],
): Promise<Set<string>> {
  const total = await countRows(opts.em, def, workspaceIds);
  const progress = async (phase: ReindexProgress['phase'], done: number, of = total): Promise<void> => {
    await opts.onProgress?.({ type: def.type, phase, done, total: of });
  };
  const written = new Set<string>();
  const tasks: number[] = [];
  await progress('load', 0);
  for (const ws of workspaceIds) {
    for await (const docs of documentChunks(opts.em, def, ws, opts.batchSize ?? 1000)) {
      tasks.push((await opts.client.index(uid).addDocuments(docs, { primaryKey: 'id' })).taskUid);
      for (const d of docs) written.add(d.id);
      await progress('load', written.size, Math.max(total, written.size));
    }
  }
  await progress('index', 0, tasks.length);
  await waitAll(opts.client, tasks, (n) => progress('index', n, tasks.length));
  return written;
}

/** Ids indexed for a workspace that Postgres no longer has. */
async function staleIds(
  opts: ReindexOptions,
  uid: string,
  workspaceId: string,
  written: Set<string>,
): Promise<string[]> {
  const stale: string[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = await opts.client
      .index(uid)
      .getDocuments({ filter: workspaceFilter(workspaceId), fields: ['id'], limit: 1000, offset });
    for (const d of page.results) if (!written.has(String(d.id))) stale.push(String(d.id));
    if (page.results.length < 1000) return stale;
  }
}

/** Re-syncs records changed while the rebuild read Postgres (their live writes may have gone to the old index). */
async function catchUp(opts: ReindexOptions, def: AnyDefinition, since: Date): Promise<number> {
  const deps: SyncDeps = { em: opts.em, client: opts.client, prefix: opts.prefix };
  let after = '0';
  let count = 0;
  for (;;) {
    const params: unknown[] = [new Date(since.getTime() - CATCH_UP_MARGIN_MS), after];
    if (opts.workspaceId) params.push(opts.workspaceId);
    const rows = await opts.em.getConnection().execute<OutboxRow[]>(
      `select id, event_id, workspace_id, type, entity_type, entity_id, actor_user_id, payload, occurred_at, attempts, delivered_to
       from outbox_event where occurred_at >= ? and id > ? ${opts.workspaceId ? 'and workspace_id = ?' : ''} order by id limit 500`,
      params,
    );
    if (rows.length === 0) return count;
    const targets = await collectTargets(
      deps,
      rows.map((r) => toClaimed(r).event),
    );
    for (const byType of targets.values())
      for (const type of [...byType.keys()]) if (type !== def.type) byType.delete(type);
    const { upserted, deleted } = await applyTargets(deps, targets, { waitForTasks: true });
    count += upserted + deleted;
    await opts.onProgress?.({ type: def.type, phase: 'catch-up', done: count, total: count });
    after = String(rows[rows.length - 1].id);
  }
}

async function reindexType(opts: ReindexOptions, def: AnyDefinition): Promise<ReindexResult> {
  const started = new Date();
  const live = indexUid(opts.prefix, def.type);
  const base = { type: def.type, index: live };
  if (opts.workspaceId) {
    // One workspace shares the index with the others: rebuild its documents in place.
    await ensureIndex(opts.client, live, def);
    const written = await load(opts, def, live, [opts.workspaceId]);
    const stale = await staleIds(opts, live, opts.workspaceId, written);
    if (stale.length)
      await waitAll(opts.client, [(await opts.client.index(live).deleteDocuments(stale)).taskUid], () => undefined);
    const caughtUp = await catchUp(opts, def, started);
    return {
      ...base,
      mode: 'workspace',
      documents: written.size,
      deleted: stale.length,
      caughtUp,
      ms: Date.now() - started.getTime(),
    };
  }
  // Build a new index next to the live one and swap: searches keep using the old one meanwhile.
  const tmp = `${live}__rebuild_${started.getTime().toString(36)}`;
  try {
    await ensureIndex(opts.client, tmp, def);
    const written = await load(opts, def, tmp, await workspacesWithRows(opts.em, def));
    await ensureIndex(opts.client, live, def);
    const swap = await opts.client.swapIndexes([{ indexes: [live, tmp], rename: false }]).waitTask(SETTINGS_WAIT);
    if (swap.status !== 'succeeded')
      throw new Error(`swapping ${tmp} into ${live}: ${swap.status} ${swap.error?.message ?? ''}`.trim());
    const caughtUp = await catchUp(opts, def, started);
    return { ...base, mode: 'swap', documents: written.size, deleted: 0, caughtUp, ms: Date.now() - started.getTime() };
  } finally {
    // After the swap `tmp` holds the previous index; before it, a partial build. Either goes.
    await opts.client
      .deleteIndex(tmp)
      .waitTask(SETTINGS_WAIT)
      .catch(() => undefined);
  }
}

/** Rebuilds the indexes of `types` from Postgres without taking search down. */
export async function reindex(opts: ReindexOptions): Promise<ReindexResult[]> {
  if (opts.workspaceId && !(await opts.em.fork().findOne(Workspace, { _id: opts.workspaceId })))
    throw notFound('workspace');
  // Every type's index exists afterwards: a multi-search naming a missing index fails as a whole.
  await ensureIndexes(opts.client, opts.prefix);
  const results: ReindexResult[] = [];
  for (const type of opts.types ?? INDEXED_TYPES) results.push(await reindexType(opts, definitionOf(type)));
  return results;
}
