/**
 * The lookup node: query (engine/lookup.ts), change detection against stored snapshots, outputs
 * under `lookup.<nodeId>` and `lookup.<alias>`, and for mode `all` the fan-out: one child
 * execution per match, started from this activity in bounded batches (not as Temporal child
 * workflows), so the parent completes and no pending-children limit applies.
 */
import { mapLimited } from '../../../platform/shared/concurrency';
import { cancellationSignal, CancelledFailure, heartbeat } from '@temporalio/activity';
import { AutomationExecution } from '../automation.entity';
import { loadEntityContext } from '../engine/context';
import { lookupEntityInfo, runLookupQuery, watchedValues, type LookupSpec } from '../engine/lookup';
import { AutomationLookupSnapshot } from '../engine/lookup-snapshot.entity';
import { startExecution } from '../engine/start';
import type { Context } from '../engine/types.pure';
import { FANOUT_CAP, workspaceInfo } from '../engine/workspace';
import { lookupDataSchema, slugify } from '../node-data.schemas';
import { issuesOf } from '../../../platform/shared/zod-kit';
import { newId } from '../../../platform/ids';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import type { ActionEnv, ActionResult } from './types';
import { fail } from './types';

/** Children started concurrently, and per heartbeat batch. */
const FANOUT_CONCURRENCY = 10;
const FANOUT_BATCH = 50;
/** Records kept in `lookup.<nodeId>.items` (the context travels with every activity call). */
const MAX_ITEMS_IN_CONTEXT = 20;

export interface LookupConfig extends LookupSpec {
  label?: string;
  mode: 'first' | 'count' | 'all';
  changeDetection: boolean;
  watchedFields: string[];
}

export function parseLookup(data: Record<string, unknown>): LookupConfig {
  const issues = issuesOf(lookupDataSchema, data, 'data');
  if (issues.length) fail(`lookup: ${issues.map((i) => `${i.path}: ${i.error}`).join('; ')}`);
  return lookupDataSchema.parse(data) as LookupConfig;
}

/** `lookup.<nodeId>` and, when the node has a label, `lookup.<alias>`. */
export function lookupContext(nodeId: string, label: string | undefined, value: Record<string, unknown>): Context {
  const alias = label ? slugify(label) : '';
  return { lookup: { [nodeId]: value, ...(alias && alias !== nodeId ? { [alias]: value } : {}) } };
}

/** Splits records into changed and unchanged against the snapshots, storing the new values (not in test runs). */
async function detectChanges(
  env: ActionEnv,
  c: LookupConfig,
  records: Record<string, unknown>[],
): Promise<{ changed: Record<string, unknown>[]; previous: Map<string, Record<string, unknown>> }> {
  const ids = records.map((r) => String(r._id));
  const snaps = ids.length
    ? await env.em.find(AutomationLookupSnapshot, {
        automationId: env.input.automationId,
        nodeId: env.input.nodeId,
        recordId: { $in: ids },
      })
    : [];
  const byId = new Map(snaps.map((s) => [s.recordId, s]));
  const changed: Record<string, unknown>[] = [];
  const previous = new Map<string, Record<string, unknown>>();
  for (const rec of records) {
    const id = String(rec._id);
    const values = watchedValues(rec, c.watchedFields);
    const snap = byId.get(id);
    if (snap && JSON.stringify(snap.values) === JSON.stringify(values)) continue;
    changed.push(rec);
    if (snap) previous.set(id, snap.values);
    if (env.input.isTest) continue;
    if (snap) snap.values = values;
    else
      env.em.persist(
        env.em.create(AutomationLookupSnapshot, {
          _id: newId(),
          workspaceId: env.input.workspaceId,
          createdAt: env.now,
          updatedAt: env.now,
          automationId: env.input.automationId,
          nodeId: env.input.nodeId,
          recordId: id,
          values,
        }),
      );
  }
  return { changed, previous };
}

export async function performLookup(env: ActionEnv, c: LookupConfig): Promise<ActionResult & { handle: string }> {
  const info = lookupEntityInfo(c.entityType);
  if (!info) fail(`lookup: ${c.entityType} records are not available yet`);
  const { plan } = await workspaceInfo(env.em, env.input.workspaceId);
  const cap = FANOUT_CAP[plan];
  const limit = c.mode === 'all' ? cap : c.mode === 'first' ? (c.changeDetection ? 50 : 1) : 0;
  const res = await runLookupQuery(env.em, c, env.input.context, {
    limit,
    timezone: env.input.timezone,
    now: env.now,
    countOnly: c.mode === 'count',
  });
  let records = res.records;
  let previous = new Map<string, Record<string, unknown>>();
  if (c.changeDetection && c.mode !== 'count') ({ changed: records, previous } = await detectChanges(env, c, records));
  if (c.mode === 'first') records = records.slice(0, 1);
  const first = records[0];
  const count = c.mode === 'count' ? res.count : c.changeDetection ? records.length : res.count;
  const found = c.mode === 'count' ? count > 0 : records.length > 0;
  const value: Record<string, unknown> = {
    ...(c.mode === 'first' && first ? first : {}),
    found,
    count,
    changed: c.changeDetection ? found : null,
    previous: first ? (previous.get(String(first._id)) ?? null) : null,
    items: records.slice(0, MAX_ITEMS_IN_CONTEXT),
  };
  if (c.mode === 'all' && found) {
    // The parent stops here (its found branch runs in the children); ids let a replay resume the fan-out.
    const output = {
      ...value,
      mode: 'all',
      matchIds: records.map((r) => String(r._id)),
      truncated: res.truncated,
      cap,
      fanOut: !env.input.isTest,
    };
    return {
      output,
      handle: env.input.isTest ? 'found' : 'fanout',
      contextPatch: lookupContext(env.input.nodeId, c.label, value),
    };
  }
  return {
    output: value,
    handle: found ? 'found' : 'empty',
    contextPatch: lookupContext(env.input.nodeId, c.label, value),
  };
}

/**
 * Starts one child execution per match (idempotent per parent, node and record), in batches with
 * a heartbeat each, stopping when this activity is cancelled or the parent is no longer running.
 */
export async function fanOut(env: ActionEnv, c: LookupConfig, output: Record<string, unknown>): Promise<void> {
  const ids = Array.isArray(output.matchIds) ? (output.matchIds as string[]) : [];
  if (!output.fanOut || ids.length === 0) return;
  const engine = env.deps.engine;
  const em = forkForWorkspace(env.deps.orm.em, env.input.workspaceId);
  const parent = await em.findOneOrFail(AutomationExecution, { _id: env.input.executionId });
  const info = lookupEntityInfo(c.entityType)!;
  const nodeKey = Buffer.from(env.input.nodeId).toString('hex').slice(0, 16);
  for (let i = 0; i < ids.length; i += FANOUT_BATCH) {
    const batch = ids.slice(i, i + FANOUT_BATCH);
    let stopped = false;
    await mapLimited(batch, FANOUT_CONCURRENCY, async (id) => {
      if (stopped) return;
      const recordCtx = info.namespace
        ? await loadEntityContext(forkForWorkspace(env.deps.orm.em, env.input.workspaceId), info.kind, id)
        : {};
      const record = (info.namespace ? recordCtx[info.namespace] : null) ?? { _id: id };
      const system = {
        ...(env.input.context.system as object),
        entityType: info.kind,
        entityId: id,
        parentExecutionId: parent._id,
      };
      const context: Context = {
        ...env.input.context,
        ...recordCtx,
        ...lookupContext(env.input.nodeId, c.label, { ...(record as object), found: true, count: 1, items: [record] }),
        system,
      };
      const res = await startExecution(engine, {
        workspaceId: env.input.workspaceId,
        automationId: env.input.automationId,
        triggerType: parent.triggerType,
        triggerKey: `fo:${parent._id}:${nodeKey}:${id}`,
        entityType: info.kind,
        entityId: id,
        context,
        parentExecutionId: parent._id,
        graph: parent.graph,
        startAt: { nodeId: env.input.nodeId, handle: 'found' },
        chain: env.input.chain.slice(0, -1),
        retryable: true,
      });
      if (res.status === 'skipped') stopped = true;
    });
    heartbeat({ started: i + batch.length });
    if (stopped) return;
    if (cancellationSignal().aborted) throw new CancelledFailure('lookup fan-out cancelled');
  }
}
