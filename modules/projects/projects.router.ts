import type { RouteFactory } from '../../platform/http/app-deps';
import * as projects from './projects.service';
import * as projectTasks from './project-tasks.service';
import { createTimeEntry, listTimeEntries } from './time-entries.service';
import { acknowledged, created, ok, paged, route } from '../../platform/http/registry';
import { crudRoutes, envelopes } from '../../platform/http/crud';
import { idParams } from '../../platform/shared/schemas';
import {
  commentParams,
  createCommentBody,
  createProjectBody,
  createProjectTaskBody,
  createTimeEntryBody,
  listProjectsQuery,
  listTimeEntriesQuery,
  moveProjectBody,
  pageQuery,
  projectCommentView,
  projectStatsView,
  projectTaskView,
  projectView,
  timeEntryView,
  taskIdParams,
  updateCommentBody,
  updateProjectBody,
  updateProjectTaskBody,
} from './projects.schemas';
import { read, write } from '../../platform/http/access';

const section = 'Projects';
const resources = { id: 'project' };
const taskResources = { taskId: 'project-task' };

export const projectsRoutes: RouteFactory = () => [
  ...crudRoutes({
    base: '/api/v1/projects',
    section,
    kind: 'project',
    access: { read, write },
    schemas: {
      list: listProjectsQuery,
      create: createProjectBody,
      update: updateProjectBody,
      view: projectView,
    },
    service: {
      list: projects.listProjects,
      create: projects.createProject,
      get: async (ctx, id) => projects.serializeProject(await projects.getProject(ctx, id)),
      update: projects.updateProject,
      remove: projects.deleteProject,
    },
    previewable: true,
    summaries: {
      list: 'List projects (newest first); filters status, owner, company, q.',
      create: 'Create a project (preview: true returns current, proposed and diff without saving).',
      get: 'Get one project.',
      update: 'Update a project (partial; customFields merge; preview supported).',
      remove: 'Delete a project with its tasks, comments, time entries and clip cards.',
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/projects/:id/move',
    section,
    access: write,
    params: idParams,
    body: moveProjectBody,
    resources,
    summary: 'Move a project to another stage of the project flow (stageId 1-4; unknown → 400).',
    response: envelopes.data(projectView),
    handler: async ({ ctx, params, body }) => ok(await projects.moveProject(ctx, params.id, body.stageId)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/projects/:id/stats',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'Hours logged (billable and not), budget used, open and done tasks.',
    response: envelopes.data(projectStatsView),
    handler: async ({ ctx, params }) => ok(await projects.projectStats(ctx, params.id)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/projects/:id/tasks',
    section,
    access: read,
    params: idParams,
    query: pageQuery,
    resources,
    summary: 'Tasks of the project (by order, then oldest first).',
    response: envelopes.list(projectTaskView),
    handler: async ({ ctx, params, query }) => {
      const { items, total } = await projectTasks.listProjectTasks(ctx, params.id, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/projects/:id/tasks',
    section,
    access: write,
    params: idParams,
    body: createProjectTaskBody,
    resources,
    successStatus: 201,
    summary: 'Create a task in the project (task fields plus startDate, taskType, billable, order).',
    response: envelopes.data(projectTaskView),
    handler: async ({ ctx, params, body }) => created(await projectTasks.createProjectTask(ctx, params.id, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/projects/tasks/:taskId',
    section,
    access: read,
    params: taskIdParams,
    resources: taskResources,
    summary: 'Get one project task.',
    response: envelopes.data(projectTaskView),
    handler: async ({ ctx, params }) =>
      ok(projectTasks.serializeProjectTask(await projectTasks.getProjectTask(ctx, params.taskId))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/projects/tasks/:taskId',
    section,
    access: write,
    params: taskIdParams,
    body: updateProjectTaskBody,
    resources: taskResources,
    summary: 'Update a project task (partial; also startDate, taskType, billable, order).',
    response: envelopes.data(projectTaskView),
    handler: async ({ ctx, params, body }) => ok(await projectTasks.updateProjectTask(ctx, params.taskId, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/projects/tasks/:taskId',
    section,
    access: write,
    params: taskIdParams,
    resources: taskResources,
    summary: 'Delete a project task and its comments.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await projectTasks.deleteProjectTask(ctx, params.taskId);
      return acknowledged();
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/projects/tasks/:taskId/comments',
    section,
    access: read,
    params: taskIdParams,
    query: pageQuery,
    resources: taskResources,
    summary: 'Comments of a project task (oldest first).',
    response: envelopes.list(projectCommentView),
    handler: async ({ ctx, params, query }) => {
      const { items, total } = await projectTasks.listComments(ctx, params.taskId, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/projects/tasks/:taskId/comments',
    section,
    access: write,
    params: taskIdParams,
    body: createCommentBody,
    resources: taskResources,
    successStatus: 201,
    summary:
      'Comment on a project task (content required; HTML stripped; at most 5,000 characters; internal and visibility must agree).',
    response: envelopes.data(projectCommentView),
    handler: async ({ ctx, params, body }) => created(await projectTasks.createComment(ctx, params.taskId, body)),
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/projects/tasks/:taskId/comments/:commentId',
    section,
    access: write,
    params: commentParams,
    body: updateCommentBody,
    resources: { taskId: 'project-task', commentId: 'project-comment' },
    summary: 'Edit a comment (content, internal, visibility; all optional).',
    response: envelopes.data(projectCommentView),
    handler: async ({ ctx, params, body }) =>
      ok(await projectTasks.updateComment(ctx, params.taskId, params.commentId, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/projects/:id/time-entries',
    section,
    access: read,
    params: idParams,
    query: listTimeEntriesQuery,
    resources,
    summary: 'Time entries of the project (newest date first; filter taskId).',
    response: envelopes.list(timeEntryView),
    handler: async ({ ctx, params, query }) => {
      const { items, total } = await listTimeEntries(ctx, params.id, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/projects/:id/time-entries',
    section,
    access: write,
    params: idParams,
    body: createTimeEntryBody,
    resources,
    successStatus: 201,
    summary:
      "Log time (hours > 0, minutes added; billable default true); consumes hours of the project's active clip card.",
    response: envelopes.data(timeEntryView),
    handler: async ({ ctx, params, body }) => created(await createTimeEntry(ctx, params.id, body)),
  }),
];
