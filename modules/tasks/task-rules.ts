import { stageById } from '../../platform/shared/stages';
import type { TaskStage } from './task-flow.entity';
import type { TaskStatus } from './task.entity';

export interface TaskFlowShape {
  stages: readonly TaskStage[];
  completedStageId: number;
}

/** The per-workspace default flow: one stage per status, Done is the completed stage. */
export const DEFAULT_TASK_FLOW: TaskFlowShape = {
  stages: [
    { id: 1, title: 'To do', order: 1, status: 'to_do' },
    { id: 2, title: 'In progress', order: 2, status: 'in_progress' },
    { id: 3, title: 'Blocked', order: 3, status: 'blocked' },
    { id: 4, title: 'Done', order: 4, status: 'done' },
  ],
  completedStageId: 4,
};

export interface StageState {
  status: TaskStatus;
  stage: number;
}

const byOrder = (flow: TaskFlowShape): TaskStage[] => [...flow.stages].sort((a, b) => a.order - b.order);

/** The status a task in `stageId` has: the completed stage always means done. */
export function statusOfStage(flow: TaskFlowShape, stageId: number): TaskStatus {
  if (stageId === flow.completedStageId) return 'done';
  return stageById(byOrder(flow), 'task-flow', 'stage', stageId).status;
}

/**
 * The stage for a status: done → completedStageId; otherwise keep a current stage that fits, else the first that does.
 */
export function stageOfStatus(flow: TaskFlowShape, status: TaskStatus, currentStage?: number): number {
  if (status === 'done') return flow.completedStageId;
  if (
    currentStage !== undefined &&
    flow.stages.some((s) => s.id === currentStage && s.status === status && s.id !== flow.completedStageId)
  )
    return currentStage;
  const match = byOrder(flow).find((s) => s.status === status && s.id !== flow.completedStageId);
  return match ? match.id : byOrder(flow)[0]!.id;
}

/**
 * States table for tasks: `stage` wins over `status` when both are sent and the status follows it;
 * status `done` puts the task in the completed stage; the completed stage means done.
 */
export function resolveStageStatus(
  flow: TaskFlowShape,
  current: StageState | null,
  input: { status?: TaskStatus; stage?: number },
): StageState {
  if (input.stage !== undefined) return { stage: input.stage, status: statusOfStage(flow, input.stage) };
  if (input.status !== undefined)
    return { status: input.status, stage: stageOfStatus(flow, input.status, current?.stage) };
  if (current) return current;
  return { status: 'to_do', stage: stageOfStatus(flow, 'to_do') };
}
