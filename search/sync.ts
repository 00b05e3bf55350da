import type { EntityManager } from '@mikro-orm/postgresql';
import type { MeiliSearch } from 'meilisearch';
import { forkForWorkspace } from '../platform/orm/tenant';
import type { OutboxEventRecord } from '../platform/outbox/subscriber';
import { loadDocuments, referencingIds } from './documents';
import { equals, isMeiliApiError } from './meili';
import { workspaceFilter } from './query';
import { definitionOf, dependentsOf, indexUid, SEARCH_DEFINITIONS } from './registry';
import type { AnyDefinition, SearchDocument } from './types/definition';

/** Records to re-read from Postgres: workspace → search type → ids. */
export type Targets = Map<string, Map<string, Set<string>>>;

export interface SyncDeps {
  /** Root EM: every read goes through a fork bound to the event's workspace. */
  em: EntityManager;
  client: MeiliSearch;
  prefix: string;
  /** How long to wait for Meilisearch to apply writes when asked to (default 60 s). */
  taskTimeoutMs?: number;
}

const ownEventsMatch = (def: AnyDefinition, event: Pick<OutboxEventRecord, 'type' | 'entityType'>): boolean =>
  def.type === event.entityType && (!def.events || def.events.includes(event.type));

function referenceEventMatches(
  refType: string,
  events: string[] | undefined,
  event: Pick<OutboxEventRecord, 'type' | 'payload'>,
): boolean {
  if (!(events ?? [`${refType}_updated`, `${refType}_deleted`]).includes(event.type)) return false;
  // An update that lists its changes and touches nothing the title reads leaves dependents as they are.
  const changes = event.payload?.changes;
  if (!event.type.endsWith('_updated') || !changes || typeof changes !== 'object') return true;
  return definitionOf(refType).titleFields.some((f) => f in (changes as Record<string, unknown>));
}

const parentsMatching = (def: AnyDefinition, event: Pick<OutboxEventRecord, 'type' | 'entityType'>) =>
  (def.parents ?? []).filter((p) => p.entityType === event.entityType && p.events.includes(event.type));

/** Cheap synchronous filter for the subscriber: does this event touch any index? */
export function affectsSearch(event: Pick<OutboxEventRecord, 'type' | 'entityType' | 'payload'>): boolean {
  if (SEARCH_DEFINITIONS.some((d) => ownEventsMatch(d, event) || parentsMatching(d, event).length > 0)) return true;
  return dependentsOf(event.entityType).some(({ reference }) =>
    referenceEventMatches(event.entityType, reference.events, event),
  );
}

function add(targets: Targets, workspaceId: string, type: string, ids: Iterable<string>): void {
  const byType = targets.get(workspaceId) ?? new Map<string, Set<string>>();
  targets.set(workspaceId, byType);
  const set = byType.get(type) ?? new Set<string>();
  byType.set(type, set);
  for (const id of ids) set.add(id);
}

/** Ids of indexed documents that point at `refId` (finds dependents whose Postgres link is already gone). */
async function indexedReferencing(
  deps: SyncDeps,
  def: AnyDefinition,
  workspaceId: string,
  idAttribute: string,
  refId: string,
): Promise<string[]> {
  const index = deps.client.index(indexUid(deps.prefix, def.type));
  const filter = workspaceFilter(workspaceId, equals(idAttribute, refId));
  const ids: string[] = [];
  try {
    for (let offset = 0; ; offset += 1000) {
      const page = await index.getDocuments({ filter, fields: ['id'], limit: 1000, offset });
      ids.push(...page.results.map((d) => String(d.id)));
      if (page.results.length < 1000) return ids;
    }
  } catch (err) {
    if (isMeiliApiError(err, 'index_not_found')) return ids;
    throw err;
  }
}

/**
 * The records whose documents the events may have changed: the event's own record, and records
 * of other types showing its title (a renamed company: its people, deals, leads). Dependents are
 * found in Postgres and in the index, since a delete unlinks them in Postgres without events.
 */
export async function collectTargets(
  deps: SyncDeps,
  events: readonly OutboxEventRecord[],
  targets: Targets = new Map(),
): Promise<Targets> {
  for (const event of events) {
    for (const def of SEARCH_DEFINITIONS) {
      if (ownEventsMatch(def, event)) add(targets, event.workspaceId, def.type, [event.entityId]);
      for (const parent of parentsMatching(def, event)) {
        // Every row of the parent: present ones are rebuilt, indexed ones gone from Postgres are deleted.
        add(
          targets,
          event.workspaceId,
          def.type,
          await referencingIds(forkForWorkspace(deps.em, event.workspaceId), def, parent.property, event.entityId),
        );
        add(
          targets,
          event.workspaceId,
          def.type,
          await indexedReferencing(deps, def, event.workspaceId, parent.idAttribute, event.entityId),
        );
      }
    }
    for (const { def, reference } of dependentsOf(event.entityType)) {
      if (!referenceEventMatches(event.entityType, reference.events, event)) continue;
      const em = forkForWorkspace(deps.em, event.workspaceId);
      add(targets, event.workspaceId, def.type, await referencingIds(em, def, reference.property, event.entityId));
      add(
        targets,
        event.workspaceId,
        def.type,
        await indexedReferencing(deps, def, event.workspaceId, reference.idAttribute, event.entityId),
      );
    }
  }
  return targets;
}

const CHUNK = 500;

export interface AppliedWrite {
  upserted: number;
  deleted: number;
  taskUids: number[];
}

/**
 * Re-reads the targets from Postgres and writes them: one addDocuments and one deleteDocuments per
 * index. Resolves once Meilisearch accepted (durably enqueued) the writes; `waitForTasks` also waits
 * until they are applied and throws if one failed.
 */
export async function applyTargets(
  deps: SyncDeps,
  targets: Targets,
  opts: { waitForTasks?: boolean } = {},
): Promise<AppliedWrite> {
  const writes = new Map<string, { upserts: SearchDocument[]; deletes: string[] }>();
  for (const [workspaceId, byType] of targets) {
    for (const [type, idSet] of byType) {
      const def = definitionOf(type);
      const uid = indexUid(deps.prefix, type);
      const write = writes.get(uid) ?? { upserts: [], deletes: [] };
      writes.set(uid, write);
      const ids = [...idSet];
      for (let i = 0; i < ids.length; i += CHUNK) {
        const { docs, missing } = await loadDocuments(
          forkForWorkspace(deps.em, workspaceId),
          def,
          ids.slice(i, i + CHUNK),
        );
        write.upserts.push(...docs);
        write.deletes.push(...missing);
      }
    }
  }
  const taskUids: number[] = [];
  let upserted = 0;
  let deleted = 0;
  for (const [uid, { upserts, deletes }] of writes) {
    const index = deps.client.index(uid);
    if (upserts.length) taskUids.push((await index.addDocuments(upserts, { primaryKey: 'id' })).taskUid);
    if (deletes.length) taskUids.push((await index.deleteDocuments(deletes)).taskUid);
    upserted += upserts.length;
    deleted += deletes.length;
  }
  if (opts.waitForTasks && taskUids.length)
    await assertTasksSucceeded(deps.client, taskUids, deps.taskTimeoutMs ?? 60_000);
  return { upserted, deleted, taskUids };
}

/** Waits for the tasks and throws naming the ones that did not succeed. */
export async function assertTasksSucceeded(
  client: MeiliSearch,
  taskUids: number[],
  timeoutMs: number,
  intervalMs = 50,
): Promise<void> {
  const done = await client.tasks.waitForTasks(taskUids, { timeout: timeoutMs, interval: intervalMs });
  const failed = done.filter((t) => t.status !== 'succeeded');
  if (failed.length)
    throw new Error(
      `search index write failed: ${failed.map((t) => `${t.indexUid} ${t.type} ${t.status}: ${t.error?.message ?? ''}`).join('; ')}`,
    );
}

/** Convenience for one-off syncs (reindex catch-up, tests). */
export async function syncEvents(
  deps: SyncDeps,
  events: readonly OutboxEventRecord[],
  opts: { waitForTasks?: boolean } = {},
): Promise<AppliedWrite> {
  return applyTargets(deps, await collectTargets(deps, events), opts);
}
