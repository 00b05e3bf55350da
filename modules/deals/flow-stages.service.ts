import { LockMode } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { conflict, notFound, validation } from '../../platform/errors';
import { deleteWithEvent, emitCreate, updateWithEvent } from '../../platform/shared/changes';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Deal } from './deal.entity';
import { FlowStage, type StageType } from './flow.entity';
import { MAX_STAGES_PER_FLOW, type FlowStageView, type StageInput } from './flows.schemas';
import { getFlow, serializeStageOf } from './flows.service';

export interface StagePatch {
  id: string;
  title?: string;
  order?: number;
  type?: StageType;
  probability?: number | null;
}

/** Adds a stage; without `order` it goes after the last one. */
export async function createStage(ctx: Ctx, flowId: string, input: StageInput): Promise<FlowStageView> {
  await getFlow(ctx, flowId);
  const existing = await ctx.em.find(FlowStage, { flowId }, { fields: ['order'] });
  if (existing.length >= MAX_STAGES_PER_FLOW)
    throw validation(`stages: a flow has at most ${MAX_STAGES_PER_FLOW} stages`);
  const last = existing.reduce((max, s) => Math.max(max, s.order), 0);
  const stage = createRecord(ctx, FlowStage, {
    flowId,
    title: input.title,
    order: input.order ?? last + 1,
    type: input.type ?? 'open',
    probability: input.probability ?? null,
  });
  await emitCreate(ctx, stage, {
    type: 'flow_stage_created',
    entityType: 'flow',
    entityId: flowId,
    payload: { flowId, stage: serializeStageOf(stage) },
  });
  return serializeStageOf(stage);
}

async function lockedStage(ctx: Ctx, flowId: string, id: string): Promise<FlowStage> {
  const stage = await ctx.em.findOne(FlowStage, { _id: id, flowId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!stage) throw notFound('stage');
  return stage;
}

/**
 * Renames, reorders or retypes a stage. Its type cannot change while deals are in it (409): their
 * status follows the stage type, so a silent retype would leave them contradicting it.
 */
export async function updateStage(ctx: Ctx, flowId: string, input: StagePatch): Promise<FlowStageView> {
  await getFlow(ctx, flowId);
  return inTransaction(ctx, async () => {
    const stage = await lockedStage(ctx, flowId, input.id);
    if (input.type !== undefined && input.type !== stage.type) {
      const deals = await ctx.em.count(Deal, { stageId: stage._id });
      if (deals)
        throw conflict(`type: stage has ${deals} deal(s); move them to another stage before changing its type`);
    }
    await updateWithEvent(
      ctx,
      stage,
      {
        title: input.title,
        order: input.order,
        type: input.type,
        probability: input.probability,
      },
      {
        type: 'flow_stage_updated',
        entityType: 'flow',
        entityId: flowId,
        payload: (changes) => ({ flowId, stage: serializeStageOf(stage), changes }),
      },
      { flush: false },
    );
    return serializeStageOf(stage);
  });
}

/** A stage that still has deals cannot be deleted (409). */
export async function deleteStage(ctx: Ctx, flowId: string, id: string): Promise<void> {
  await getFlow(ctx, flowId);
  await inTransaction(ctx, async () => {
    const stage = await lockedStage(ctx, flowId, id);
    const deals = await ctx.em.count(Deal, { stageId: id });
    if (deals)
      throw conflict(`stage "${stage.title}" has ${deals} deal(s); move them to another stage before deleting it`);
    const payload = { flowId, stage: serializeStageOf(stage) };
    await deleteWithEvent(
      ctx,
      stage,
      { type: 'flow_stage_deleted', entityType: 'flow', entityId: flowId, payload },
      { flush: false },
    );
  });
}
