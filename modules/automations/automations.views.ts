import { z } from 'zod';
import { FAILURE_BEHAVIORS } from './definition.schemas';
import { dateTimeView, idView, openObjectView, recordViewFields } from '../../platform/shared/views';

// Response views of automations and their executions (the API's answers; request bodies live in
// definition.schemas.ts and automations.schemas.ts).

export const executionStatusView = z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']);

export const graphNodeView = z.object({
  id: z.string(),
  type: z.string().describe('trigger, action, condition, delay, … (see the node types of the spec)'),
  position: z.object({ x: z.number(), y: z.number() }),
  data: openObjectView.describe('node settings: triggers and actions under data.config (secrets masked)'),
});

export const graphEdgeView = z.object({
  id: z.string(),
  source: z.string(),
  target: z.string(),
  sourceHandle: z.string().nullable().optional(),
  targetHandle: z.string().nullable().optional(),
});

export const executionSettingsView = z.object({
  failureBehavior: z.enum(FAILURE_BEHAVIORS),
  retryMaxAttempts: z.number().int(),
  retryIntervalMinutes: z.number().int(),
});

export const rateLimitsView = z
  .object({
    maxRunsPerHour: z.number().int(),
    maxRunsPerDay: z.number().int(),
    maxRunsPerWeek: z.number().int(),
    maxTotalRuns: z.number().int(),
  })
  .describe('run caps; 0 means unlimited');

export const automationView = z.object({
  _id: idView,
  name: z.string(),
  description: z.string().nullable(),
  isActive: z.boolean(),
  triggerType: z.string().nullable().describe("the trigger node's type (null while the graph has none)"),
  nodes: z.array(graphNodeView),
  edges: z.array(graphEdgeView),
  executionSettings: executionSettingsView,
  rateLimits: rateLimitsView,
  version: z.number().int().describe('grows when nodes, edges or settings change'),
  deactivatedReason: z.string().nullable().describe('why the product deactivated it (cleared on activation)'),
  stats: z.object({
    totalRuns: z.number().int(),
    skippedRuns: z.number().int(),
    lastSkipReason: z.string().nullable(),
    lastSkippedAt: dateTimeView.nullable(),
  }),
  createdBy: idView.nullable(),
  createdAt: recordViewFields.createdAt,
  updatedAt: recordViewFields.updatedAt,
});
export type AutomationView = z.infer<typeof automationView>;

export const validationIssueView = z.object({ path: z.string(), error: z.string() });

/** Create and update answer `{ data }`, plus `warnings` when there are any. */
export const savedAutomationView = z.object({
  data: automationView,
  warnings: z
    .array(validationIssueView)
    .optional()
    .describe('deprecated actions, placeholders that never resolve (absent when none)'),
});

export const automationToggleView = z.object({ _id: idView, isActive: z.boolean() });
export const deletedView = z.object({ deleted: z.literal(true) });

export const automationStatsView = z.object({
  totalAutomations: z.number().int(),
  activeAutomations: z.number().int(),
  totalExecutions: z.number().int(),
  executionsByStatus: z.object({
    queued: z.number().int().describe('recorded, workflow not started yet'),
    running: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
  }),
  avgDuration: z.number().nullable().describe('mean durationMs of finished executions; null when none'),
});

export const executionSummaryView = z.object({
  _id: idView,
  automationId: idView,
  automationName: z.string(),
  automationVersion: z.number().int(),
  status: executionStatusView,
  triggerType: z.string(),
  entityType: z.string().nullable(),
  entityId: z.string().nullable(),
  isTest: z.boolean(),
  parentExecutionId: idView.nullable().describe('the fan-out parent run'),
  retryOf: idView.nullable().describe('the failed execution this run retries (POST …/executions/:executionId/retry)'),
  retries: z.array(idView).describe('the executions that retry this one, oldest first'),
  workflowId: z.string(),
  startedAt: dateTimeView,
  finishedAt: dateTimeView.nullable(),
  durationMs: z.number().int().nullable(),
  error: z.string().nullable(),
});
export type ExecutionSummaryView = z.infer<typeof executionSummaryView>;

export const stepView = z.object({
  _id: idView,
  nodeId: z.string(),
  nodeType: z.string(),
  actionType: z.string().nullable(),
  status: z.enum(['running', 'completed', 'failed', 'skipped']),
  attempt: z.number().int(),
  startedAt: dateTimeView,
  endedAt: dateTimeView.nullable(),
  input: z.unknown().describe('what the step ran with (secrets masked)'),
  output: z.unknown().describe('what it produced (null when nothing)'),
  error: z.string().nullable(),
  handle: z.string().nullable().describe('branch taken by a branching node (true/false, found/empty/error)'),
});
export type StepView = z.infer<typeof stepView>;

export const executionView = executionSummaryView.extend({
  context: openObjectView.describe('the trigger context (namespaces such as lead, webhookData)'),
  graph: z.object({
    nodes: z.array(graphNodeView),
    edges: z.array(graphEdgeView),
    executionSettings: executionSettingsView,
  }),
  steps: z.array(stepView).describe('step log in run order'),
});
export type ExecutionView = z.infer<typeof executionView>;

export const startedRunView = z.object({
  executionId: idView,
  workflowId: z.string(),
  status: executionStatusView,
});
export const startedTestRunView = startedRunView.extend({ isTest: z.literal(true) });
export const cancelledRunView = z.object({ cancelled: z.literal(true), childrenCancelled: z.number().int() });
export const webhookStartView = z.object({
  executionId: idView.nullable().describe('null when the run was skipped'),
  status: z.union([executionStatusView, z.literal('skipped')]),
  reason: z.string().optional().describe('why it was skipped (run caps)'),
});
export type WebhookStartView = z.infer<typeof webhookStartView>;

export const retriedRunView = startedRunView.extend({
  retryOf: idView.describe('the failed execution this run retries'),
  from: z.enum(['failed_step', 'start']),
  definition: z.enum(['original', 'current']),
  reusedSteps: z.number().int().describe('steps of the original carried over as completed (not run again)'),
  existing: z.boolean().describe('true when a repeated request (same Idempotency-Key) found the retry it recorded'),
});
export const bulkRetryView = z.object({
  count: z.number().int().describe('executions retried (each a new queued execution)'),
  executionIds: z.array(idView).describe('the new executions, in the order of the runs they retry (oldest first)'),
  skipped: z
    .array(z.object({ executionId: idView, reason: z.string() }))
    .describe('failed executions not retried, with why (a run cap, a failed node missing from the current graph)'),
});
