import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as tasks from './tasks.service';
import { TASK_SUMMARY_FIELDS } from './tasks.service';
import { listTasks } from './tasks.query';
import { readTaskFlow } from './task-flow.service';
import { project } from '../../platform/shared/list-query';
import { acknowledged, created, ok, paged, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import {
  createTaskBody,
  listTasksQuery,
  taskFlowView,
  taskSummaryView,
  taskView,
  updateTaskBody,
} from './tasks.schemas';
import { envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'Tasks';
const resources = { id: 'task' };

export const tasksRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/tasks',
    section,
    access: read,
    query: listTasksQuery,
    summary: 'List tasks (newest first; oldest change first with updatedSince). dateFrom/dateTo bound the deadline.',
    response: envelopes.list(
      z.union([taskView, taskSummaryView]).describe('the task; view=summary: its summary fields'),
    ),
    handler: async ({ ctx, query }) => {
      const { items, total } = await listTasks(ctx, query);
      return paged(
        items.map((t) => project(t, { view: query.view, summary: TASK_SUMMARY_FIELDS })),
        { page: query.page, limit: query.limit, total },
      );
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/tasks',
    section,
    access: write,
    body: createTaskBody,
    successStatus: 201,
    summary:
      'Create a task with exactly one parent (project, customObjectRecord + customObjectSlug, company, personRef, leadRef or dealRef).',
    response: envelopes.data(taskView),
    handler: async ({ ctx, body }) => created(await tasks.createTask(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/tasks/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'Get one task.',
    response: envelopes.data(taskView),
    handler: async ({ ctx, params }) => ok(await tasks.readTask(ctx, params.id)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/tasks/:id',
    section,
    access: write,
    params: idParams,
    body: updateTaskBody,
    resources,
    summary:
      'Update a task (partial). stage wins over status; status done moves to the completed stage and the completed stage means done; customFields merge.',
    response: envelopes.data(taskView),
    handler: async ({ ctx, params, body }) => ok(await tasks.updateTask(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/tasks/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a task (its timeline history rows stay).',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await tasks.deleteTask(ctx, params.id);
      return acknowledged();
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
