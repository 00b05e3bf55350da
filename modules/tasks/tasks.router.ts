import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as tasks from './tasks.service';
import { TASK_SUMMARY_FIELDS } from './tasks.service';
import { listTasks } from './tasks.query';
import { readTaskFlow } from './task-flow.service';
import { projectedList } from '../../platform/shared/list-query';
import { ok, route } from '../../platform/http/registry';
import {
  createTaskBody,
  listTasksQuery,
  taskFlowView,
  taskSummaryView,
  taskView,
  updateTaskBody,
} from './tasks.schemas';
import { crudRoutes, envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'Tasks';

export const tasksRoutes: RouteFactory = () => [
  ...crudRoutes({
    base: '/api/v1/tasks',
    section,
    kind: 'task',
    access: { read, write },
    schemas: { list: listTasksQuery, create: createTaskBody, update: updateTaskBody, view: taskView },
    service: {
      list: projectedList(listTasks, TASK_SUMMARY_FIELDS),
      create: tasks.createTask,
      get: tasks.readTask,
      update: tasks.updateTask,
      remove: tasks.deleteTask,
    },
    routes: {
      list: {
        response: envelopes.list(
          z.union([taskView, taskSummaryView]).describe('the task; view=summary: its summary fields'),
        ),
      },
    },
    summaries: {
      list: 'List tasks (newest first; oldest change first with updatedSince). dateFrom/dateTo bound the deadline.',
      create:
        'Create a task with exactly one parent (project, customObjectRecord + customObjectSlug, company, personRef, leadRef or dealRef).',
      get: 'Get one task.',
      update:
        'Update a task (partial). stage wins over status; status done moves to the completed stage and the completed stage means done; customFields merge.',
      remove: 'Delete a task (its timeline history rows stay).',
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/task-flow',
    section,
    access: read,
    summary:
      'The task flow: stages { id, title, order, status } and completedStageId (default: 1 To do, 2 In progress, 3 Blocked, 4 Done).',
    response: envelopes.data(taskFlowView),
    handler: async ({ ctx }) => ok(await readTaskFlow(ctx)),
  }),
];
