import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';
import type { KanbanStage } from '../../platform/shared/stages';
import type { TaskStatus } from './task.entity';

/** A task-flow stage; `status` is the task status a task in this stage has. */
export interface TaskStage extends KanbanStage {
  status: TaskStatus;
}

// One per workspace, created lazily with the default stages on first use.
export const TaskFlow = defineEntity({
  name: 'TaskFlow',
  tableName: 'task_flow',
  uniques: [{ properties: ['workspaceId'] }],
  properties: {
    ...tenantProps,
    stages: p.json<TaskStage[]>(),
    completedStageId: p.integer(),
  },
});
export type TaskFlow = InferEntity<typeof TaskFlow>;
