import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import type { Deal } from './deal.entity';
import { firstStage } from './deal-status';
import { Flow, FlowStage } from './flow.entity';
import { ensureDefaultFlow, stageRef, stagesOf, type StageRef } from './flows.service';

export interface Placement {
  flowId: string;
  stage: StageRef;
}

/**
 * Where a deal goes. stageId must belong to the flow: the flowId sent, else the deal's current
 * flow (a new deal takes the stage's flow). flowId alone means that flow's first open stage; a
 * new deal with neither lands in the first open stage of the default flow (created on demand).
 * Returns null for an update that names no new place.
 */
export async function resolvePlacement(
  ctx: Ctx,
  input: { flowId?: string; stageId?: string },
  opts: { current?: Deal; dryRun?: boolean },
): Promise<Placement | null> {
  const { flowId, stageId } = input;
  const current = opts.current;
  if (flowId && !(await ctx.em.count(Flow, { _id: flowId }))) throw validation(`flowId: no flow with id ${flowId}`);
  if (stageId) {
    const stage = await ctx.em.findOne(FlowStage, { _id: stageId });
    if (!stage) throw validation(`stageId: no stage with id ${stageId}`);
    const expectedFlow = flowId ?? current?.flowId;
    if (expectedFlow && stage.flowId !== expectedFlow) {
      throw validation(
        flowId
          ? `stageId: stage ${stageId} does not belong to flow ${flowId}`
          : `stageId: stage ${stageId} belongs to another flow; send flowId to move the deal to that flow`,
      );
    }
    return { flowId: stage.flowId, stage: stageRef(stage) };
  }
  if (flowId) {
    if (current && current.flowId === flowId) return null;
    const stage = firstStage((await stagesOf(ctx, [flowId])).get(flowId) ?? []);
    if (!stage)
      throw validation(`flowId: flow ${flowId} has no stages; add one with POST /api/v1/flows/${flowId}/stages`);
    return { flowId, stage };
  }
  if (current) return null;
  const fallback = await ensureDefaultFlow(ctx, { dryRun: opts.dryRun });
  const stage = firstStage(fallback.stages);
  if (!stage) throw validation(`flowId: the default flow has no stages; add one or send flowId`);
  return { flowId: fallback.flowId, stage };
}
