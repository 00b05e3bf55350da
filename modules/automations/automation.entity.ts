import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';
import type { GraphEdge } from './topology.pure';

export type { GraphEdge };

export interface GraphNode {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: Record<string, unknown>;
}
export interface ExecutionSettings {
  failureBehavior: 'stop' | 'continue' | 'retry';
  retryMaxAttempts: number;
  retryIntervalMinutes: number;
}
export interface RateLimits {
  maxRunsPerHour: number;
  maxRunsPerDay: number;
  maxRunsPerWeek: number;
  maxTotalRuns: number;
}

/** The automation definition. `version` increases on every graph/settings change; executions snapshot it. */
export const Automation = defineEntity({
  name: 'Automation',
  tableName: 'automation',
  indexes: [{ properties: ['workspaceId', 'isActive', 'triggerType'] }],
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    description: p.text().nullable(),
    isActive: p.boolean().default(false),
    nodes: p.json<GraphNode[]>(),
    edges: p.json<GraphEdge[]>(),
    executionSettings: p.json<ExecutionSettings>(),
    rateLimits: p.json<RateLimits>(),
    /** Denormalised from the trigger node so event matching is one indexed query. */
    triggerType: p.string().length(60).nullable(),
    version: p.integer().default(1),
    /** Executions started so far (for maxTotalRuns). */
    totalRuns: p.integer().default(0),
    skippedRuns: p.integer().default(0),
    lastSkipReason: p.string().length(300).nullable(),
    lastSkippedAt: p.datetime().nullable(),
    deactivatedReason: p.string().length(300).nullable(),
    createdBy: p.string().length(24).nullable(),
  },
});
export type Automation = InferEntity<typeof Automation>;

/** `queued`: committed by an API start, its workflow not started yet (the starter does that next). */
export type ExecutionStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/**
 * One run, mirrored from its Temporal workflow so REST reads never need workflow history.
 * `graph` is the definition snapshot the run started with (edits never change runs in flight).
 */
export const AutomationExecution = defineEntity({
  name: 'AutomationExecution',
  tableName: 'automation_execution',
  uniques: [{ properties: ['automationId', 'triggerKey'] }],
  indexes: [
    { properties: ['workspaceId', 'automationId', 'status', 'startedAt'] },
    { properties: ['workspaceId', 'status'] },
    { properties: ['parentExecutionId'] },
    {
      name: 'automation_execution_retry_of_index',
      expression: `create index "automation_execution_retry_of_index" on "automation_execution" ("retry_of") where "retry_of" is not null`,
    },
  ],
  properties: {
    ...tenantProps,
    automationId: p.string().length(24),
    automationName: p.string().length(200),
    automationVersion: p.integer(),
    graph: p.json<{ nodes: GraphNode[]; edges: GraphEdge[]; executionSettings: ExecutionSettings }>(),
    status: p.string().length(20).$type<ExecutionStatus>().default('running'),
    triggerType: p.string().length(60),
    /** Dedupe key of the start: outbox event id, webhook delivery, schedule tick, api call id. */
    triggerKey: p.string().length(100),
    entityType: p.string().length(40).nullable(),
    entityId: p.string().length(64).nullable(),
    context: p.json<Record<string, unknown>>(),
    isTest: p.boolean().default(false),
    workflowId: p.string().length(200),
    parentExecutionId: p.string().length(24).nullable(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
    durationMs: p.integer().nullable(),
    error: p.text().nullable(),
    /** A starter's claim on a queued row (engine/starter.ts); expired claims are taken over. */
    startLeaseUntil: p.datetime().nullable(),
    /** False while the automation's totalRuns does not include this run yet (the starter adds it). */
    runCounted: p.boolean().default(true),
    /** The failed execution this run retries (POST /automations/executions/:id/retry, engine/retry.ts). */
    retryOf: p.string().length(24).nullable(),
  },
});
export type AutomationExecution = InferEntity<typeof AutomationExecution>;

export type StepStatus = 'running' | 'completed' | 'failed' | 'skipped';

/** Step log row: one per node run attempt group (attempt = last attempt number). */
export const AutomationStep = defineEntity({
  name: 'AutomationStep',
  tableName: 'automation_step',
  uniques: [{ properties: ['executionId', 'nodeId'] }],
  indexes: [{ properties: ['workspaceId', 'executionId'] }],
  properties: {
    ...tenantProps,
    executionId: p.string().length(24),
    nodeId: p.string().length(100),
    nodeType: p.string().length(20),
    actionType: p.string().length(60).nullable(),
    status: p.string().length(20).$type<StepStatus>(),
    attempt: p.integer().default(1),
    startedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
    input: p.json<unknown>().nullable(),
    output: p.json<unknown>().nullable(),
    error: p.text().nullable(),
    /** The branch taken (true/false, found/empty/error) for branching nodes. */
    handle: p.string().length(20).nullable(),
  },
});
export type AutomationStep = InferEntity<typeof AutomationStep>;
