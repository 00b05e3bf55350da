/**
 * Activities of the automation execution workflow. One activity call per action, lookup and ai
 * node, plus `finishExecution` (in-workflow steps and the final status) — so an execution costs
 * its action nodes + 1 activities. `recordSteps` is only used before a delay's timer.
 */
import { lazy } from '../../platform/shared/lazy';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AiProvider } from '../ai';
import { systemNamespace } from './engine/context';
import { nodeDataWithSecrets } from './engine/secret-refs';
import type { EngineDeps } from './engine/ports';
import { startExecution } from './engine/start';
import { finishExecutionWithSteps } from './engine/finish';
import { writeWorkflowSteps } from './engine/steps';
import { roomFreed } from '../../platform/intake/queue-signal';
import type {
  FinishExecutionInput,
  NodeActivityInput,
  NodeActivityResult,
  RecordStepsInput,
  ScheduledStartInput,
} from './engine/types.pure';
import { automationScheduleId } from './automation-ids.pure';
import type { AppConfig } from '../../platform/config';
import { DomainError } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { createMessagingDeps, type MessagingDeps } from '../email';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { handlerFor, resolveActionConfig } from './actions';
import type { AutomationActivityDeps, SequenceEnroller } from './actions/deps';
import { aiContext, parseAi, performAi, type AiConfig } from './actions/ai';
import { fanOut, lookupContext, parseLookup, performLookup, type LookupConfig } from './actions/lookup';
import { runStep } from './actions/step-runner';
import { withHeartbeats } from '../../platform/temporal/heartbeat';

export type { AutomationActivityDeps } from './actions/deps';

export interface AutomationActivityOptions {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  engine: EngineDeps;
  messaging?: MessagingDeps;
  ai?: AiProvider;
  sequences?: SequenceEnroller;
}

export function createAutomationActivities(opts: AutomationActivityOptions) {
  const deps: AutomationActivityDeps = {
    orm: opts.orm,
    config: opts.config,
    log: opts.log,
    engine: opts.engine,
    messaging: opts.messaging ? () => opts.messaging! : lazy(() => createMessagingDeps(opts.config)),
    ai: () => opts.ai ?? null,
    sequences: opts.sequences,
  };

  return {
    async runAction(received: NodeActivityInput): Promise<NodeActivityResult> {
      // Secrets (credential headers) are not in the workflow's payloads: read them from Postgres.
      const data = await nodeDataWithSecrets(
        forkForWorkspace(deps.orm.em, received.workspaceId),
        received.executionId,
        received.nodeId,
        received.data,
      );
      const input = data === received.data ? received : { ...received, data };
      const { type, handler } = handlerFor(input.data.actionType);
      let unresolved: string[] = [];
      return withHeartbeats(() =>
        runStep(deps, input, {
          nodeType: 'action',
          actionType: type,
          transactional: handler.kind === 'crm',
          prepare: () => {
            const r = resolveActionConfig(type, input.data.config, input.context, input.timezone);
            unresolved = r.unresolved;
            return r.config;
          },
          testDescription: (c) =>
            `test: ${handler.describe(c)}${unresolved.length ? ` (unresolved: ${unresolved.join(', ')})` : ''}`,
          perform: (env, c) => handler.run(env, c),
          contextOf: (output) => {
            const o = output as { status?: number; data?: unknown; mapped?: Record<string, unknown> } | null;
            return (type === 'http_request' || type === 'send_webhook') && o
              ? { httpResponse: { status: o.status, data: o.data, ...(o.mapped ?? {}) } }
              : undefined;
          },
        }),
      );
    },

    async runLookup(input: NodeActivityInput): Promise<NodeActivityResult> {
      // Parsed up front: a replayed step (fast path) still needs it to resume the fan-out.
      let config: LookupConfig | undefined;
      try {
        config = parseLookup(input.data);
      } catch {
        config = undefined; // reported as the step's error by prepare below
      }
      return withHeartbeats(() =>
        runStep(deps, input, {
          nodeType: 'lookup',
          actionType: null,
          transactional: true,
          prepare: () => config ?? parseLookup(input.data),
          testDescription: () => null,
          perform: (env, c) => performLookup(env, c),
          contextOf: (output) => lookupContext(input.nodeId, config?.label, output as Record<string, unknown>),
          after: async (env, output) => (config ? fanOut(env, config, output as Record<string, unknown>) : undefined),
        }),
      );
    },

    async runAi(input: NodeActivityInput): Promise<NodeActivityResult> {
      return withHeartbeats(() =>
        runStep<AiConfig>(deps, input, {
          nodeType: 'ai',
          actionType: null,
          transactional: false,
          prepare: () => parseAi(input.data, input.context, input.timezone),
          testDescription: (c) => `test: would ask the AI model (${c.outputMode}): ${c.prompt.slice(0, 200)}`,
          perform: (env, c) => performAi(env, c),
          contextOf: aiContext,
        }),
      );
    },

    /** Trigger/condition/delay steps decided in the workflow, written before a long timer. */
    async recordSteps(input: RecordStepsInput): Promise<void> {
      await writeWorkflowSteps(
        forkForWorkspace(deps.orm.em, input.workspaceId),
        input.workspaceId,
        input.executionId,
        input.steps,
      );
    },

    async finishExecution(input: FinishExecutionInput): Promise<boolean> {
      const changed = await finishExecutionWithSteps(forkForWorkspace(deps.orm.em, input.workspaceId), {
        ...input,
        error: input.error ?? null,
      });
      // Room under the workspace's cap on runs in flight: a starter starts its next queued run (a backlog worker runs
      // none: the main worker's hears it through NOTIFY).
      if (changed && deps.config.automationMaxInFlightPerWorkspace > 0)
        await roomFreed(deps.orm.em, input.workspaceId, deps.config.workerRole !== 'backlog');
      return changed;
    },

    /** A schedule tick: starts the run through the caps (dedupe key: the tick time). */
    async startScheduledExecution(
      input: ScheduledStartInput,
    ): Promise<{ status: string; executionId?: string; reason?: string }> {
      const at = new Date(input.scheduledAt);
      try {
        const res = await startExecution(deps.engine, {
          workspaceId: input.workspaceId,
          automationId: input.automationId,
          triggerType: 'scheduled',
          triggerKey: `tick:${input.scheduledAt}`,
          context: { system: systemNamespace(input.workspaceId, null, null, at) },
          retryable: true,
          now: at,
        });
        return res.status === 'skipped'
          ? { status: 'skipped', reason: res.reason }
          : { status: res.status, executionId: res.execution._id };
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
        // The automation is gone: its schedule should have been removed with it.
        await deps.engine.workflows.deleteSchedule(automationScheduleId(input.workspaceId, input.automationId));
        return { status: 'skipped', reason: 'automation deleted' };
      }
    },
  };
}

export type AutomationActivities = ReturnType<typeof createAutomationActivities>;
