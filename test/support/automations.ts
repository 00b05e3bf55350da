import {
  AutomationExecution,
  AutomationStep,
  type ExecutionStatus,
  type GraphEdge,
  type GraphNode,
} from '../../modules/automations/automation.entity';
import { SCOPES, type Ctx } from '../../platform/context';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { createRecord } from '../../platform/shared/records';
import type { HttpClient, TestApp } from './app';
import { noteOnCreateGraph } from './note-graph';

/** A valid graph: record_created trigger → create_note. */
export const validGraph = (): { nodes: GraphNode[]; edges: GraphEdge[] } =>
  noteOnCreateGraph('lead', 'New lead {{lead.title}}');

export const automationBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Welcome note',
  description: 'Notes every new lead',
  ...validGraph(),
  ...overrides,
});

/** Executions are created by the engine only: tests insert them straight into the mirror. */
export async function workspaceCtx(app: TestApp, http: HttpClient): Promise<Ctx> {
  const me = (await http.get('/api/v1/whoami')).body.data;
  const workspaceId = me.workspace._id as string;
  return {
    em: forkForWorkspace(app.runtime.deps.orm.em, workspaceId),
    actor: { workspaceId, userId: me.user?._id ?? workspaceId, role: 'owner', scopes: SCOPES },
  };
}

export interface ExecutionSeed {
  status?: ExecutionStatus;
  startedAt?: Date;
  durationMs?: number | null;
  isTest?: boolean;
  error?: string | null;
  entityType?: string | null;
  entityId?: string | null;
}

export async function insertExecution(
  ctx: Ctx,
  automationId: string,
  seed: ExecutionSeed = {},
): Promise<AutomationExecution> {
  const startedAt = seed.startedAt ?? new Date();
  const status = seed.status ?? 'completed';
  const finished = status !== 'running';
  const durationMs = seed.durationMs === undefined ? (finished ? 1000 : null) : seed.durationMs;
  const e = createRecord(ctx, AutomationExecution, {
    automationId,
    automationName: 'Welcome note',
    automationVersion: 1,
    graph: {
      ...validGraph(),
      executionSettings: { failureBehavior: 'stop', retryMaxAttempts: 3, retryIntervalMinutes: 5 },
    },
    status,
    triggerType: 'record_created',
    triggerKey: `test-${Math.random().toString(36).slice(2)}`,
    entityType: seed.entityType === undefined ? 'lead' : seed.entityType,
    entityId: seed.entityId === undefined ? '0123456789abcdef01234567' : seed.entityId,
    context: { lead: { title: 'Seeded' } },
    isTest: seed.isTest ?? false,
    workflowId: '',
    parentExecutionId: null,
    startedAt,
    finishedAt: finished ? new Date(startedAt.getTime() + (durationMs ?? 0)) : null,
    durationMs,
    error: seed.error ?? (status === 'failed' ? 'boom' : null),
  });
  e.workflowId = `automation-execution:${ctx.actor.workspaceId}:${e._id}`;
  await ctx.em.flush();
  return e;
}

export async function insertStep(
  ctx: Ctx,
  executionId: string,
  step: Partial<AutomationStep> & { nodeId: string; nodeType: string; startedAt: Date },
): Promise<AutomationStep> {
  const s = createRecord(ctx, AutomationStep, {
    status: 'completed',
    attempt: 1,
    actionType: null,
    endedAt: null,
    input: null,
    output: null,
    error: null,
    handle: null,
    ...step,
    executionId,
  });
  await ctx.em.flush();
  return s;
}
