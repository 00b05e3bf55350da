import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { conflict } from '../../platform/errors';
import { newId } from '../../platform/ids';
import { emit } from '../../platform/outbox/emit';
import { applyPatch, emitUpdate } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Deal } from './deal.entity';
import { Flow, FlowStage, type StageType } from './flow.entity';
import type { FlowInput, FlowStageView, FlowView, StageInput, StageView } from './flows.schemas';
import { getRecord } from '../../platform/shared/record-service';

/** A stage as deals see it (plain, so a preview can use one that was never stored). */
export interface StageRef {
  id: string;
  flowId: string;
  title: string;
  order: number;
  type: StageType;
  probability: number | null;
}

/** Created lazily for a workspace that has no flow yet (listing flows, or a deal without flowId). */
export const DEFAULT_FLOW = {
  title: 'Sales pipeline',
  stages: [
    { title: 'Lead', type: 'open', probability: 10 },
    { title: 'Qualified', type: 'open', probability: 25 },
    { title: 'Proposal', type: 'open', probability: 50 },
    { title: 'Negotiation', type: 'open', probability: 75 },
    { title: 'Won', type: 'won', probability: 100 },
    { title: 'Lost', type: 'lost', probability: 0 },
  ] as const,
};

export const stageRef = (s: FlowStage): StageRef => ({
  id: s._id,
  flowId: s.flowId,
  title: s.title,
  order: s.order,
  type: s.type,
  probability: s.probability ?? null,
});
const serializeStage = (s: StageRef): StageView => ({
  id: s.id,
  title: s.title,
  order: s.order,
  type: s.type,
  probability: s.probability,
});

export function serializeFlow(flow: Flow, stages: readonly StageRef[]): FlowView {
  return {
    ...plainOf(flow, ['_id', 'title', 'description', 'isDefault']),
    stages: stages.map(serializeStage),
    ...plainOf(flow, ['createdAt', 'updatedAt']),
  };
}
export const serializeStageOf = (s: FlowStage): FlowStageView => ({
  ...serializeStage(stageRef(s)),
  flowId: s.flowId,
});

export function getFlow(ctx: Ctx, id: string): Promise<Flow> {
  return getRecord(ctx, Flow, id, 'flow');
}

export async function stagesOf(ctx: Ctx, flowIds: string[]): Promise<Map<string, StageRef[]>> {
  const rows = await ctx.em.find(FlowStage, { flowId: { $in: flowIds } }, { orderBy: { order: 'asc', _id: 'asc' } });
  const map = new Map<string, StageRef[]>(flowIds.map((id) => [id, []]));
  for (const row of rows) map.get(row.flowId)?.push(stageRef(row));
  return map;
}

export async function getFlowView(ctx: Ctx, id: string): Promise<FlowView> {
  const flow = await getFlow(ctx, id);
  return serializeFlow(flow, (await stagesOf(ctx, [id])).get(id) ?? []);
}

/** Orders for new stages: the given one, else one after the highest so far. */
function withOrders(inputs: readonly StageInput[], startAfter: number): Required<StageInput>[] {
  let last = startAfter;
  return inputs.map((s) => {
    const order = s.order ?? last + 1;
    last = Math.max(last, order);
    return { title: s.title, order, type: s.type ?? 'open', probability: s.probability ?? null };
  });
}

function buildFlow(
  ctx: Ctx,
  input: FlowInput & { title: string },
  stages: readonly StageInput[],
  isDefault: boolean,
): { flow: Flow; stages: FlowStage[] } {
  const flow = createRecord(ctx, Flow, { title: input.title, description: input.description ?? null, isDefault });
  const rows = withOrders(stages, 0).map((s) => createRecord(ctx, FlowStage, { ...s, flowId: flow._id }));
  return { flow, stages: rows };
}

/**
 * The workspace's default flow, created with DEFAULT_FLOW's stages when the workspace has no flow.
 * Creation runs on its own fork and tolerates a concurrent creator (partial unique index).
 * `dryRun` (preview) returns an unsaved blueprint instead.
 */
export async function ensureDefaultFlow(
  ctx: Ctx,
  opts: { dryRun?: boolean } = {},
): Promise<{ flowId: string; stages: StageRef[] }> {
  const found = await findDefaultFlow(ctx);
  if (found) return found;
  if (opts.dryRun) {
    const flowId = newId();
    return { flowId, stages: withOrders(DEFAULT_FLOW.stages, 0).map((s) => ({ ...s, id: newId(), flowId })) };
  }
  const fork = { em: ctx.em.fork(), actor: ctx.actor };
  const built = buildFlow(fork, { title: DEFAULT_FLOW.title }, DEFAULT_FLOW.stages, true);
  emit(fork, {
    type: 'flow_created',
    entityType: 'flow',
    entityId: built.flow._id,
    payload: { flow: serializeFlow(built.flow, built.stages.map(stageRef)) },
  });
  try {
    await fork.em.flush();
  } catch (err) {
    // A concurrent request created it first: use theirs.
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
  }
  const created = await findDefaultFlow(ctx);
  if (!created) throw new Error('default flow could not be created');
  return created;
}

async function findDefaultFlow(ctx: Ctx): Promise<{ flowId: string; stages: StageRef[] } | null> {
  const flow =
    (await ctx.em.findOne(Flow, { isDefault: true })) ??
    (await ctx.em.findOne(Flow, {}, { orderBy: { createdAt: 'asc' } }));
  return flow ? { flowId: flow._id, stages: (await stagesOf(ctx, [flow._id])).get(flow._id) ?? [] } : null;
}

export async function listFlows(ctx: Ctx, page: PageRequest) {
  await ensureDefaultFlow(ctx);
  const { items, total } = await findPage(ctx.em, Flow, {}, page, { createdAt: 'asc' });
  const stages = await stagesOf(
    ctx,
    items.map((f) => f._id),
  );
  return { items: items.map((f) => serializeFlow(f, stages.get(f._id) ?? [])), total };
}

/** The first flow of a workspace is its default; isDefault: true moves the default to the new flow. */
export async function createFlow(
  ctx: Ctx,
  input: FlowInput & { title: string; stages?: StageInput[] },
): Promise<FlowView> {
  return inTransaction(ctx, async () => {
    const hasFlows = (await ctx.em.count(Flow, {})) > 0;
    const isDefault = input.isDefault === true || !hasFlows;
    if (isDefault)
      await ctx.em.nativeUpdate(Flow, { workspaceId: ctx.actor.workspaceId, isDefault: true }, { isDefault: false });
    const built = buildFlow(ctx, input, input.stages ?? [], isDefault);
    const view = serializeFlow(built.flow, built.stages.map(stageRef));
    emit(ctx, { type: 'flow_created', entityType: 'flow', entityId: built.flow._id, payload: { flow: view } });
    return view;
  });
}

export async function updateFlow(ctx: Ctx, id: string, input: FlowInput): Promise<FlowView> {
  const flow = await getFlow(ctx, id);
  if (input.isDefault === false && flow.isDefault)
    throw conflict('isDefault: this is the default flow; set isDefault: true on another flow instead');
  return inTransaction(ctx, async () => {
    if (input.isDefault && !flow.isDefault) {
      await ctx.em.nativeUpdate(Flow, { workspaceId: ctx.actor.workspaceId, isDefault: true }, { isDefault: false });
    }
    const stages = (await stagesOf(ctx, [id])).get(id) ?? [];
    const changes = applyPatch(flow, {
      title: input.title,
      description: input.description,
      isDefault: input.isDefault,
    });
    // Serialized before the stamp: the event has always carried the previous updatedAt.
    const view = serializeFlow(flow, stages);
    const event = { type: 'flow_updated', entityType: 'flow', payload: () => ({ flow: view, changes }) } as const;
    await emitUpdate(ctx, flow, changes, event, { flush: false });
    return serializeFlow(flow, stages);
  });
}

/** A flow with deals cannot go (409); neither can the last one. The oldest other flow inherits the default. */
export async function deleteFlow(ctx: Ctx, id: string): Promise<void> {
  const flow = await getFlow(ctx, id);
  await inTransaction(ctx, async () => {
    // Stage rows are locked so a deal being placed concurrently (it holds a share lock) is counted.
    const stages = await ctx.em.find(
      FlowStage,
      { flowId: id },
      { orderBy: { order: 'asc', _id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const deals = await ctx.em.count(Deal, { flowId: id });
    if (deals) throw conflict(`flow has ${deals} deal(s); move or delete them before deleting the flow`);
    const next = await ctx.em.findOne(Flow, { _id: { $ne: id } }, { orderBy: { createdAt: 'asc' } });
    if (!next) throw conflict('a workspace keeps at least one flow; create another flow before deleting this one');
    await ctx.em.nativeDelete(FlowStage, { workspaceId: ctx.actor.workspaceId, flowId: id });
    ctx.em.remove(flow);
    // Removing first frees the partial unique index before the successor becomes default.
    await ctx.em.flush();
    if (flow.isDefault) next.isDefault = true;
    emit(ctx, {
      type: 'flow_deleted',
      entityType: 'flow',
      entityId: id,
      payload: { flow: serializeFlow(flow, stages.map(stageRef)) },
    });
  });
}
