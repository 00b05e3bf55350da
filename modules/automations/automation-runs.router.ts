import type { RouteFactory } from '../../platform/http/app-deps';
import { executionStatusTransitions } from './automations.rules';
import { cancelExecution } from './engine/cancel';
import { retryExecution, retryExecutions } from './engine/retry';
import { requestKeyOf } from '../../platform/http/idempotency';
import { startFromWebhook, testAutomation, triggerManually } from './engine/manual';
import type { EngineDeps } from './engine/ports';
import { validation } from '../../platform/errors';
import { envelopes, publicRoute } from '../../platform/http/crud';
import { ok, route } from '../../platform/http/registry';
import {
  bulkRetryView,
  cancelledRunView,
  retriedRunView,
  startedRunView,
  startedTestRunView,
  webhookStartView,
} from './automations.views';
import { idParams } from '../../platform/shared/schemas';
import {
  bulkRetryBody,
  cancelParams,
  retryBody,
  retryParams,
  testBody,
  triggerBody,
  webhookParams,
} from './automation-runs.schemas';

const section = 'Automations';
const write = { scopes: ['write'] } as const;
const resources = { id: 'automation' };

export const automationRunsRoutes: RouteFactory = (deps) => {
  const engine: EngineDeps = {
    orm: deps.orm,
    log: deps.log.child({ component: 'automations' }),
    intakeMaxQueued: deps.config.intakeMaxQueuedPerWorkspace,
    // Every engine call bounded by ENGINE_DEADLINE_MS (cancel included): 503 with Retry-After, never a hang.
    workflows: deps.workflows,
  };
  return [
    route({
      method: 'POST',
      path: '/api/v1/automations/:id/trigger',
      section,
      access: write,
      params: idParams,
      body: triggerBody,
      resources,
      successStatus: 202,
      summary:
        "Record a run of an active automation and answer at once (409 when inactive or a run cap skips it). `context` holds namespaces (e.g. lead, webhookData); entityType + entityId load that record's namespaces first. Answers 202 { data: { executionId, workflowId, status: 'queued' } }: the workflow starts moments later (status running), also when the engine was down at the time. 429 with Retry-After when too many runs of the workspace wait to start.",
      response: envelopes.data(startedRunView),
      errors: [429],
      handler: async ({ ctx, params, body }) => {
        const e = await triggerManually(engine, ctx.actor.workspaceId, params.id, {
          context: body.context,
          entityType: body.entityType,
          entityId: body.entityId,
        });
        return { status: 202, body: { data: { executionId: e._id, workflowId: e.workflowId, status: e.status } } };
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/automations/:id/test',
      section,
      access: write,
      params: idParams,
      body: testBody,
      resources,
      successStatus: 202,
      summary:
        "Run the automation (active or not) in test mode: steps record what they would do (no e-mail, SMS, HTTP, AI or CRM writes), delays are not awaited, lookups and conditions run for real; no run caps or counters. 202 { data: { executionId, workflowId, status: 'queued', isTest: true } } (the run starts moments later); 429 with Retry-After when too many runs of the workspace wait to start.",
      response: envelopes.data(startedTestRunView),
      errors: [429],
      handler: async ({ ctx, params, body }) => {
        const e = await testAutomation(engine, ctx.actor.workspaceId, params.id, {
          context: body.testContext,
          entityType: body.entityType,
          entityId: body.entityId,
        });
        return {
          status: 202,
          body: { data: { executionId: e._id, workflowId: e.workflowId, status: e.status, isTest: true } },
        };
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/automations/executions/:executionId/cancel',
      section,
      access: write,
      params: cancelParams,
      transitions: [executionStatusTransitions],
      resources: { executionId: 'automation-execution' },
      summary:
        'Cancel a running execution and its fan-out children (status cancelled); 409 when it is not running. 503 unavailable (Retry-After) when the workflow engine does not confirm within ENGINE_DEADLINE_MS: details.recorded is false, the run goes on and its status stays running; retry later.',
      response: envelopes.data(cancelledRunView),
      handler: async ({ ctx, params }) => ok(await cancelExecution(engine, ctx.actor.workspaceId, params.executionId)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/automations/executions/:executionId/retry',
      section,
      access: write,
      params: retryParams,
      body: retryBody,
      resources: { executionId: 'automation-execution' },
      successStatus: 202,
      summary:
        "Retry a failed execution as a new one (retryOf names the original; the original lists it in retries and keeps its history). from failed_step (default): the steps the original completed are not run again (their effects stay once), the failed node and those after it run again; from start: every node runs again. definition original (default): the graph the run started with; current: the automation's graph now (409 when the failed node is not in it, or it cannot run). 409 invalid_state unless the execution failed, or when a run cap leaves no room. Answers 202 { data: { executionId, workflowId, status: queued, retryOf, from, definition, reusedSteps, existing } }: the workflow starts moments later. Idempotent with Idempotency-Key; 429 with Retry-After when too many runs of the workspace wait to start.",
      response: envelopes.data(retriedRunView),
      errors: [429],
      handler: async ({ ctx, params, body, koa }) => {
        const ws = ctx.actor.workspaceId;
        const r = await retryExecution(engine, ws, params.executionId, body, requestKeyOf(koa, ws));
        return { status: 202, body: { data: r } };
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/automations/:id/executions/retry',
      section,
      access: write,
      params: idParams,
      body: bulkRetryBody,
      resources,
      successStatus: 202,
      summary:
        "Retry the automation's failed executions started in [since, until) that have no retry yet, oldest first, up to limit (1-1000, default 100), each as POST /automations/executions/:executionId/retry does (same from and definition). Answers 202 { data: { count, executionIds, skipped } }: the runs are recorded queued and start moments later; skipped lists those a run cap or the current graph refused, with why. Idempotent with Idempotency-Key.",
      response: envelopes.data(bulkRetryView),
      errors: [429],
      handler: async ({ ctx, params, body }) => {
        const r = await retryExecutions(engine, ctx.actor.workspaceId, params.id, body);
        return { status: 202, body: { data: r } };
      },
    }),
    publicRoute({
      method: 'POST',
      path: '/api/webhooks/automation/:automationId',
      section,
      params: webhookParams,
      successStatus: 202,
      reason: 'authenticated by the x-webhook-secret header (compared in constant time with the trigger secret)',
      response: envelopes.data(webhookStartView),
      errors: [401, 429],
      summary:
        'Start an active automation with a webhook trigger. The JSON body becomes webhookData.*; entityMapping loads the named record. 401 (nothing runs) on a missing or wrong secret; 404 for unknown ids and automations that are inactive or not webhook-triggered; rate-limited per automation, and 429 with Retry-After when too many runs of the workspace wait to start. An Idempotency-Key header makes re-deliveries start nothing new. Answers after one commit: 202 { data: { executionId, status: queued } }; the workflow starts moments later (status running), also when the engine was down at the time.',
      handler: async ({ params, body, koa }) => {
        if (koa.request.rawBody && !koa.request.is('json'))
          throw validation('request body must be JSON (Content-Type: application/json)');
        const data = await startFromWebhook(engine, {
          automationId: params.automationId,
          secret: koa.get('x-webhook-secret') || undefined,
          body,
          deliveryKey: koa.get('idempotency-key') || undefined,
          limits: { perMinute: deps.config.rateLimitPerMinute, perDay: deps.config.rateLimitPerDay },
        });
        return { status: 202, body: { data } };
      },
    }),
  ];
};
