import type { Ctx } from '../../platform/context';
import { newId } from '../../platform/ids';
import { TaskFlow } from './task-flow.entity';
import { DEFAULT_TASK_FLOW, type TaskFlowShape } from './task-rules';
import type { TaskFlowView } from './tasks.schemas';

/** The workspace's task flow, created with the default stages on first use (race-safe). */
export async function getTaskFlow(ctx: Ctx): Promise<TaskFlowShape> {
  const existing = await ctx.em.findOne(TaskFlow, {});
  if (existing) return { stages: existing.stages, completedStageId: existing.completedStageId };
  const now = new Date();
  // Two first requests may race: the unique workspace column lets exactly one insert win.
  await ctx.em
    .createQueryBuilder(TaskFlow)
    .insert({
      _id: newId(now),
      workspaceId: ctx.actor.workspaceId,
      stages: DEFAULT_TASK_FLOW.stages.map((stage) => ({ ...stage })),
      completedStageId: DEFAULT_TASK_FLOW.completedStageId,
      createdAt: now,
      updatedAt: now,
    })
    .onConflict(['workspaceId'])
    .ignore()
    .execute();
  const flow = await ctx.em.findOneOrFail(TaskFlow, {});
  return { stages: flow.stages, completedStageId: flow.completedStageId };
}

export async function readTaskFlow(ctx: Ctx): Promise<TaskFlowView> {
  const flow = await getTaskFlow(ctx);
  const stages = [...flow.stages]
    .sort((a, b) => a.order - b.order)
    .map(({ id, title, order, status }) => ({ id, title, order, status }));
  return { stages, completedStageId: flow.completedStageId };
}
