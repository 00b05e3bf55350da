/**
 * Automation definitions: create, update, toggle, duplicate, delete. Every change is one flush
 * with an `automation_changed` outbox event, which the engine uses to keep Temporal Schedules of
 * `scheduled` triggers in step with the definition. Reads live in automations-read.service.ts.
 */
import { maskNodeSecrets, restoreMaskedSecrets } from './secrets';
import { LockMode } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { applyPatch } from '../../platform/shared/changes';
import { createRecord } from '../../platform/shared/records';
import { definitionCopy } from '../../platform/shared/definition-copy';
import { inTransaction } from '../../platform/shared/tx';
import { Automation, AutomationExecution, type GraphEdge, type GraphNode } from './automation.entity';
import {
  DEFAULT_EXECUTION_SETTINGS,
  DEFAULT_RATE_LIMITS,
  type AutomationCreateBody,
  type AutomationUpdateBody,
  type ExecutionSettings,
  type RateLimits,
} from './definition.schemas';
import { formatGraphErrors, validateAutomationGraph } from './graph';
import { assertAutomationRefs } from './graph-refs.service';
import type { ValidationIssue } from '../../platform/shared/zod-kit';
import type { AutomationView } from './automations.views';

export type AutomationChangeAction = 'created' | 'updated' | 'toggled' | 'deleted' | 'duplicated';

/** A write's result: the record plus save-time warnings (deprecated actions, dead placeholders). */
export interface SavedAutomation {
  data: AutomationView;
  warnings: ValidationIssue[];
}

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** Stored settings may predate a new key: defaults fill what is missing. */
const settingsOf = (a: Automation): ExecutionSettings => ({ ...DEFAULT_EXECUTION_SETTINGS, ...a.executionSettings });
const limitsOf = (a: Automation): RateLimits => ({ ...DEFAULT_RATE_LIMITS, ...a.rateLimits });

export function serializeAutomation(a: Automation): AutomationView {
  return {
    _id: a._id,
    name: a.name,
    description: a.description ?? null,
    isActive: a.isActive,
    triggerType: a.triggerType ?? null,
    nodes: maskNodeSecrets(a.nodes),
    edges: a.edges,
    executionSettings: settingsOf(a),
    rateLimits: limitsOf(a),
    version: a.version,
    deactivatedReason: a.deactivatedReason ?? null,
    stats: {
      totalRuns: a.totalRuns,
      skippedRuns: a.skippedRuns,
      lastSkipReason: a.lastSkipReason ?? null,
      lastSkippedAt: iso(a.lastSkippedAt),
    },
    createdBy: a.createdBy ?? null,
    createdAt: a.createdAt.toISOString(),
    updatedAt: a.updatedAt.toISOString(),
  };
}

/** A new or duplicated automation starts at version 1 with no run history. */
const FRESH_RUN_STATE = {
  version: 1,
  totalRuns: 0,
  skippedRuns: 0,
  lastSkipReason: null,
  lastSkippedAt: null,
  deactivatedReason: null,
} as const;

export async function getAutomation(ctx: Ctx, id: string, lock = false): Promise<Automation> {
  // The row lock serialises edits, toggles and deletes of one automation (version, run-cap checks).
  const a = await ctx.em.findOne(Automation, { _id: id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!a) throw notFound('automation');
  return a;
}

const triggerTypeOf = (nodes: readonly GraphNode[]): string | null => {
  const t = nodes.find((n) => n.type === 'trigger')?.data?.triggerType;
  return typeof t === 'string' ? t : null;
};

/** Drafts (inactive) may have an empty graph; anything else must validate fully. */
function checkGraph(
  nodes: GraphNode[],
  edges: GraphEdge[],
  strict: boolean,
  settings: { executionSettings?: unknown; rateLimits?: unknown } = {},
): ValidationIssue[] {
  const result = validateAutomationGraph(nodes, edges, {
    allowEmpty: !strict,
    executionSettings: settings.executionSettings,
    rateLimits: settings.rateLimits,
  });
  if (!result.ok) throw new DomainError('validation', formatGraphErrors(result.errors), result.errors);
  return result.warnings;
}

/** Key order differs between a parsed body and jsonb read back, so compare canonically. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}
const sameJson = (a: unknown, b: unknown): boolean =>
  JSON.stringify(canonical(a ?? null)) === JSON.stringify(canonical(b ?? null));

function emitChanged(
  ctx: Ctx,
  a: Automation,
  action: AutomationChangeAction,
  extra: { sourceAutomationId?: string } = {},
): void {
  emit(ctx, {
    type: 'automation_changed',
    entityType: 'automation',
    entityId: a._id,
    payload: { automation: serializeAutomation(a), action, ...extra },
  });
}

export async function createAutomation(ctx: Ctx, input: AutomationCreateBody): Promise<SavedAutomation> {
  const nodes = input.nodes as GraphNode[];
  const edges = input.edges as GraphEdge[];
  const warnings = checkGraph(nodes, edges, false);
  await assertAutomationRefs(ctx, nodes);
  const a = createRecord(ctx, Automation, {
    name: input.name,
    description: input.description ?? null,
    isActive: false, // activated only by toggle, after a full validation
    nodes,
    edges,
    executionSettings: { ...DEFAULT_EXECUTION_SETTINGS, ...input.executionSettings },
    rateLimits: { ...DEFAULT_RATE_LIMITS, ...input.rateLimits },
    triggerType: triggerTypeOf(nodes),
    ...FRESH_RUN_STATE,
    createdBy: ctx.actor.userId,
  });
  emitChanged(ctx, a, 'created');
  await ctx.em.flush();
  return { data: serializeAutomation(a), warnings };
}

/**
 * Partial update. Settings merge key by key over the stored ones; the merged definition is
 * validated (strictly while active, so a live automation can never hold a broken graph).
 * `version` grows only when nodes, edges or settings really change: running executions keep
 * the snapshot they started with.
 */
export async function updateAutomation(ctx: Ctx, id: string, input: AutomationUpdateBody): Promise<SavedAutomation> {
  return inTransaction(ctx, async () => {
    const a = await getAutomation(ctx, id, true);
    const definition = {
      nodes: input.nodes ? restoreMaskedSecrets(input.nodes as GraphNode[], a.nodes) : a.nodes,
      edges: (input.edges ?? a.edges) as GraphEdge[],
      executionSettings: { ...settingsOf(a), ...input.executionSettings },
      rateLimits: { ...limitsOf(a), ...input.rateLimits },
    };
    const warnings = checkGraph(definition.nodes, definition.edges, a.isActive, definition);
    if (input.nodes) await assertAutomationRefs(ctx, definition.nodes);
    const definitionChanged =
      !sameJson(a.nodes, definition.nodes) ||
      !sameJson(a.edges, definition.edges) ||
      !sameJson(settingsOf(a), definition.executionSettings) ||
      !sameJson(limitsOf(a), definition.rateLimits);
    const changes = applyPatch(a, { name: input.name, description: input.description } as Partial<Automation>);
    if (definitionChanged) {
      Object.assign(a, definition, { triggerType: triggerTypeOf(definition.nodes), version: a.version + 1 });
    }
    if (definitionChanged || Object.keys(changes).length) {
      a.updatedAt = new Date();
      emitChanged(ctx, a, 'updated');
    }
    return { data: serializeAutomation(a), warnings };
  });
}

/** Flips isActive. Turning on needs a fully valid graph and a run budget left (maxTotalRuns). */
export async function toggleAutomation(ctx: Ctx, id: string): Promise<{ _id: string; isActive: boolean }> {
  return inTransaction(ctx, async () => {
    const a = await getAutomation(ctx, id, true);
    if (!a.isActive) {
      checkGraph(a.nodes, a.edges, true);
      // A record named by a node may have been deleted since the last save.
      await assertAutomationRefs(ctx, a.nodes);
      const { maxTotalRuns } = limitsOf(a);
      if (maxTotalRuns > 0 && a.totalRuns >= maxTotalRuns) {
        throw new DomainError(
          'invalid_state',
          `automation already ran ${a.totalRuns} of its maxTotalRuns ${maxTotalRuns}; raise rateLimits.maxTotalRuns (0 = unlimited) before activating it`,
        );
      }
      a.isActive = true;
      a.deactivatedReason = null;
    } else {
      a.isActive = false;
    }
    a.updatedAt = new Date();
    emitChanged(ctx, a, 'toggled');
    return { _id: a._id, isActive: a.isActive };
  });
}

/** An inactive copy with the same graph and node ids (ids are per automation) and fresh counters. */
export async function duplicateAutomation(ctx: Ctx, id: string): Promise<AutomationView> {
  const source = await getAutomation(ctx, id);
  const copy = createRecord(ctx, Automation, {
    ...definitionCopy(ctx, source),
    executionSettings: settingsOf(source),
    rateLimits: limitsOf(source),
    triggerType: source.triggerType ?? null,
    ...FRESH_RUN_STATE,
  });
  emitChanged(ctx, copy, 'duplicated', { sourceAutomationId: source._id });
  await ctx.em.flush();
  return serializeAutomation(copy);
}

/**
 * Deletes the automation with its execution history and step logs (nothing is left pointing at
 * a missing definition). Refused with 409 while any execution runs: cancel or let them finish.
 */
export async function deleteAutomation(ctx: Ctx, id: string): Promise<void> {
  const ws = ctx.actor.workspaceId;
  await inTransaction(ctx, async () => {
    const a = await getAutomation(ctx, id, true);
    const running = await ctx.em.count(AutomationExecution, {
      automationId: id,
      status: { $in: ['queued', 'running'] },
    });
    if (running > 0) {
      throw new DomainError(
        'conflict',
        `automation has ${running} running execution${running === 1 ? '' : 's'}; cancel ${running === 1 ? 'it' : 'them'} (POST /api/v1/automations/executions/:executionId/cancel) or wait until ${running === 1 ? 'it finishes' : 'they finish'}`,
      );
    }
    await ctx.em.execute(
      'delete from automation_step s using automation_execution e where s.execution_id = e.id and s.workspace_id = ? and e.workspace_id = ? and e.automation_id = ?',
      [ws, ws, id],
    );
    await ctx.em.nativeDelete(AutomationExecution, { workspaceId: ws, automationId: id });
    emitChanged(ctx, a, 'deleted');
    ctx.em.remove(a);
  });
}
