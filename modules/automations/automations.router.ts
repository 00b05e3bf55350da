import type { RouteFactory } from '../../platform/http/app-deps';
import * as automations from './automations.service';
import * as reads from './automations-read.service';
import type { ValidationIssue } from '../../platform/shared/zod-kit';
import { envelopes } from '../../platform/http/crud';
import { ok, pageOf, route, type Reply } from '../../platform/http/registry';
import {
  automationStatsView,
  automationToggleView,
  automationView,
  deletedView,
  executionSummaryView,
  executionView,
  savedAutomationView,
} from './automations.views';
import { idParams } from '../../platform/shared/schemas';
import {
  automationCreateBody,
  automationUpdateBody,
  executionParams,
  listAutomationsQuery,
  listExecutionsQuery,
} from './automations.schemas';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Automations';
const resources = { id: 'automation' };

/** `{ data }`, plus `warnings` (deprecated actions, placeholders that never resolve) when there are any. */
const saved = (status: number, result: { data: unknown; warnings: ValidationIssue[] }): Reply => ({
  status,
  body: { data: result.data, ...(result.warnings.length ? { warnings: result.warnings } : {}) },
});

/**
 * Definitions, stats and the execution mirror. Starting, testing and cancelling runs live in the
 * engine's router. Static paths (/stats, /executions/…) come before /:id: the first route that
 * matches answers.
 */
export const automationsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/automations',
    section,
    access: read,
    query: listAutomationsQuery,
    summary: 'List automations (newest first), optionally only active or inactive ones.',
    response: envelopes.list(automationView),
    handler: async ({ ctx, query }) => pageOf(await reads.listAutomations(ctx, query), query),
  }),
  route({
    method: 'POST',
    path: '/api/v1/automations',
    section,
    access: write,
    body: automationCreateBody,
    successStatus: 201,
    summary:
      'Create an automation (always inactive; an empty graph is allowed as a draft, any other graph must validate).',
    response: savedAutomationView,
    handler: async ({ ctx, body }) => saved(201, await automations.createAutomation(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/automations/stats',
    section,
    access: read,
    summary: 'Workspace automation stats: counts, executions by status, average duration (ms) of finished runs.',
    response: envelopes.data(automationStatsView),
    handler: async ({ ctx }) => ok(await reads.getAutomationStats(ctx)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/automations/executions/:executionId',
    section,
    access: read,
    params: executionParams,
    resources: { executionId: 'automation-execution' },
    summary: 'One execution with its trigger context, the graph snapshot it ran with and its full step log.',
    response: envelopes.data(executionView),
    handler: async ({ ctx, params }) => ok(await reads.getExecution(ctx, params.executionId)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/automations/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'Get one automation with its run counters (stats) and version.',
    response: envelopes.data(automationView),
    handler: async ({ ctx, params }) =>
      ok(automations.serializeAutomation(await automations.getAutomation(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/automations/:id',
    section,
    access: write,
    params: idParams,
    body: automationUpdateBody,
    resources,
    summary:
      'Update an automation (partial; settings merge key by key; the merged graph must validate, fully when active). version grows when nodes, edges or settings change.',
    response: savedAutomationView,
    handler: async ({ ctx, params, body }) => saved(200, await automations.updateAutomation(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/automations/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete an automation with its execution history; 409 while an execution is running.',
    response: envelopes.data(deletedView),
    handler: async ({ ctx, params }) => {
      await automations.deleteAutomation(ctx, params.id);
      return ok({ deleted: true });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/automations/:id/toggle',
    section,
    access: write,
    params: idParams,
    resources,
    summary:
      'Activate or deactivate; activating needs a fully valid graph (400 otherwise) and clears deactivatedReason.',
    response: envelopes.data(automationToggleView),
    handler: async ({ ctx, params }) => ok(await automations.toggleAutomation(ctx, params.id)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/automations/:id/duplicate',
    section,
    access: write,
    params: idParams,
    resources,
    successStatus: 201,
    summary:
      'Create an inactive copy named "<name> (copy)" with the same graph (same node ids) and settings, fresh counters.',
    response: envelopes.data(automationView),
    handler: async ({ ctx, params }) => ({
      status: 201,
      body: { data: await automations.duplicateAutomation(ctx, params.id) },
    }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/automations/:id/executions',
    section,
    access: read,
    params: idParams,
    query: listExecutionsQuery,
    resources,
    summary: 'Executions of an automation, newest first, optionally by status (without graph snapshot and context).',
    response: envelopes.list(executionSummaryView),
    handler: async ({ ctx, params, query }) => pageOf(await reads.listExecutions(ctx, params.id, query), query),
  }),
];
