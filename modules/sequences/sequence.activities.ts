/**
 * Activities of the sequence enrollment workflow: `sequenceMirror` (status, current step, next
 * action time, step rows and the enrollment events; run as a local activity) and
 * `sequenceRunStep` (one node's effect). Each step is idempotent on enrollment + node: CRM effects
 * commit together with their step row, sends go out under the key `seq:<enrollmentId>:<nodeId>`.
 */
import { lazy } from '../../platform/shared/lazy';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/activity';
import type { AiProvider } from '../ai';
import { checkCondition } from '../automations/conditions.pure';
import { automationActor, automationActorId } from '../automations/index.actor';
import { resolveValue } from '../../platform/shared/placeholders.pure';
import type { AppConfig } from '../../platform/config';
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { createMessagingDeps, type MessagingDeps } from '../email';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { emit } from '../../platform/outbox/emit';
import { enrollmentEventPayload } from './runs';
import { sendKey } from './send';
import { SequenceEnrollment } from './sequence.entity';
import { findStep, beginStep, mirrorWithoutStatus, upsertStep } from './step-rows';
import { SEQUENCE_FAILURE_TYPES, type MirrorInput, type StepActivityInput, type StepActivityResult } from './types';
import { createRecallAction, createTaskAction } from '../automations/index.steps';
import { isPermanentError, setAccessAction, updateRecordAction } from '../automations/index.steps';
import type { ActionEnv, ActionHandler } from '../automations/index.steps';
import { aiStep } from './sequence-step-ai';
import { buildContext, DeferredStep, KIND, PLACEHOLDERS, stepFail, type StepDeps } from './sequence-step-context';
import { sendStep } from './sequence-step-send';

export interface SequenceActivityOptions {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  messaging?: MessagingDeps;
  ai?: AiProvider;
  /** Tests only: how long an unfinished e-mail claim counts as in progress (default 5 minutes). */
  staleClaimMs?: number;
}

export function createSequenceActivities(opts: SequenceActivityOptions) {
  const messaging = opts.messaging ? () => opts.messaging! : lazy(() => createMessagingDeps(opts.config));
  const ai = () => opts.ai ?? null;
  const log = opts.log;
  const deps: StepDeps = { config: opts.config, messaging, ai, staleClaimMs: opts.staleClaimMs };

  const CRM_HANDLERS: Record<
    string,
    {
      handler: ActionHandler<never>;
      config: (d: Record<string, unknown>, e: SequenceEnrollment) => Record<string, unknown>;
    }
  > = {
    create_task: {
      handler: createTaskAction as ActionHandler<never>,
      config: (d) => ({
        title: d.taskTitle,
        description: d.taskDescription ?? undefined,
        activityType: d.activityType,
        priority: d.priority,
        dateScheduleType: 'relative',
        dueInDays: d.dueInDays,
        durationMinutes: 30,
        assignTo: d.assignTo,
        conflictPolicy: 'create_anyway',
      }),
    },
    create_recall: {
      handler: createRecallAction as ActionHandler<never>,
      config: (d) => ({
        title: d.title,
        message: d.message ?? undefined,
        phoneField: d.phoneField,
        delayDays: d.delayDays,
        assignTo: d.assignTo,
      }),
    },
    update_field: {
      handler: updateRecordAction as ActionHandler<never>,
      // `lead.status` on a lead enrollment is the lead's own status.
      config: (d, e) => ({
        recordType: 'trigger',
        fieldUpdates: [
          { fieldKey: String(d.fieldPath).replace(new RegExp(`^${KIND[e.entityType]}\\.`), ''), value: d.value },
        ],
      }),
    },
    set_access: {
      handler: setAccessAction as ActionHandler<never>,
      config: (d) => ({ recordType: 'trigger', accessState: d.accessState }),
    },
  };

  async function crmStep(
    em: EntityManager,
    ctx: Ctx,
    e: SequenceEnrollment,
    node: StepActivityInput['node'],
    context: Record<string, unknown>,
  ): Promise<StepActivityResult> {
    const spec = CRM_HANDLERS[node.type]!;
    const raw = spec.config(node.data, e);
    const tz = e.snapshot.settings.sendSettings.timezone;
    const config = Object.fromEntries(
      Object.entries(raw).map(([k, v]) => [
        k,
        typeof v === 'string' ? resolveValue(v, context, { ...PLACEHOLDERS, timezone: tz }) : v,
      ]),
    );
    return em.transactional(async (tem) => {
      // A concurrent attempt that finished this step first holds its row until it commits.
      const prior = await findStep(tem, e.workspaceId, e._id, node.id, { forUpdate: true });
      if (prior?.status === 'completed') return { status: 'completed' as const, output: prior.output ?? {} };
      await upsertStep(tem, e, node.id, node.type, { status: 'running' });
      const tctx: Ctx = { em: tem, actor: ctx.actor };
      const env = {
        em: tem,
        ctx: tctx,
        now: new Date(),
        idempotencyKey: sendKey(e._id, node.id),
        input: {
          workspaceId: e.workspaceId,
          executionId: e._id,
          automationId: e.sequenceId,
          nodeId: node.id,
          data: node.data,
          context,
          isTest: false,
          actorUserId: ctx.actor.userId,
          timezone: tz,
          chain: [],
          failureBehavior: 'stop',
        },
        deps: { orm: opts.orm, config: opts.config, log, messaging, ai } as never,
      } as ActionEnv;
      const r = await spec.handler.run(env, config as never);
      const output = (r.output ?? {}) as Record<string, unknown>;
      await upsertStep(tem, e, node.id, node.type, {
        status: r.status === 'skipped' ? 'skipped' : 'completed',
        output,
      });
      return { status: r.status === 'skipped' ? ('skipped' as const) : ('completed' as const), output };
    });
  }

  return {
    /** Bookkeeping (local activity): never moves a finished enrollment back; events in the same transaction. */
    async sequenceMirror(input: MirrorInput): Promise<boolean> {
      const em = forkForWorkspace(opts.orm.em, input.workspaceId);
      // Most mirrors (a step reached, a wait scheduled or done) change no status: one statement.
      if (input.status === undefined) return mirrorWithoutStatus(em, input);
      return em.transactional(async (tem) => {
        const e = await tem.findOne(
          SequenceEnrollment,
          { _id: input.enrollmentId },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!e) return false;
        const running = e.status === 'active' || e.status === 'paused';
        if (running) {
          if (input.currentNodeId !== undefined) e.currentNodeId = input.currentNodeId;
          if (input.nextActionAt !== undefined)
            e.nextActionAt = input.nextActionAt ? new Date(input.nextActionAt) : null;
          if (input.pausedUntil !== undefined) e.pausedUntil = input.pausedUntil ? new Date(input.pausedUntil) : null;
          if (input.waitReason !== undefined || input.nextActionAt !== undefined)
            e.waitReason = input.waitReason ?? null;
          if (input.status && input.status !== e.status) {
            // A pause is a wait reason of its own; a resume without one given has none left.
            if (input.waitReason === undefined && (input.status === 'paused' || e.status === 'paused'))
              e.waitReason = input.status === 'paused' ? 'paused' : null;
            e.status = input.status;
            e.lastCommandId = input.commandId ?? null;
            if (input.status === 'completed' || input.status === 'exited') {
              e.finishedAt = new Date();
              e.exitReason = input.status === 'exited' ? (input.exitReason ?? null) : null;
              e.error = input.error ?? null;
              e.nextActionAt = null;
              e.pausedUntil = null;
              e.waitReason = null;
            }
            if (input.event) {
              const actor = automationActor(e.workspaceId, await automationActorId(tem, e.enrolledBy));
              emit(
                { em: tem, actor },
                {
                  type: input.event,
                  entityType: 'sequence_enrollment',
                  entityId: e._id,
                  payload: enrollmentEventPayload(e),
                },
              );
            }
          }
          e.updatedAt = new Date();
        }
        if (input.step)
          await upsertStep(tem, e, input.step.nodeId, input.step.nodeType, {
            status: input.step.status,
            output: input.step.output ?? null,
            error: input.step.error ?? null,
          });
        await tem.flush();
        return running;
      });
    },

    async sequenceRunStep(input: StepActivityInput): Promise<StepActivityResult> {
      const result = await runStep(input);
      const then = input.then;
      if (!then || result.exit || result.status === 'failed' || result.status === 'deferred') return result;
      // The wait that follows starts now: recorded here instead of by a bookkeeping round trip of the run.
      // An enrollment that ended meanwhile gets no wait (the run then leaves without one).
      const until = new Date(Date.now() + then.waitMs).toISOString();
      const running = await mirrorWithoutStatus(
        forkForWorkspace(opts.orm.em, input.workspaceId),
        {
          workspaceId: input.workspaceId,
          enrollmentId: input.enrollmentId,
          currentNodeId: then.nodeId,
          nextActionAt: until,
          step: { nodeId: then.nodeId, nodeType: 'wait', status: 'waiting', output: { until, ms: then.waitMs } },
        },
        { stepOnlyWhileRunning: true },
      );
      return running
        ? { ...result, waitUntil: until, waitLeftMs: Math.max(0, Date.parse(until) - Date.now()) }
        : result;
    },
  };

  async function runStep(input: StepActivityInput): Promise<StepActivityResult> {
    const em = forkForWorkspace(opts.orm.em, input.workspaceId);
    const begun = await beginStep(em, input.workspaceId, input.enrollmentId, input.node.id);
    if (!begun) throw ApplicationFailure.nonRetryable('enrollment not found', SEQUENCE_FAILURE_TYPES.permanent);
    const { enrollment: e, step: done } = begun;
    // The workflow carries a node's id and type only (runs.ts workflowNodeOf); its data is the enrollment's snapshot.
    // Runs started with full node data (before that) keep working: their own data is the same snapshot.
    const node = e.snapshot.nodes.find((n) => n.id === input.node.id && n.type === input.node.type) ?? input.node;
    // Ended meanwhile (a restart or unenroll): the run leaves without acting.
    if (e.status !== 'active' && e.status !== 'paused')
      return { status: 'skipped', exit: (e.exitReason as never) ?? 'manual' };
    if (done && (done.status === 'completed' || done.status === 'skipped'))
      return {
        status: done.status,
        handle: (done.handle as 'true' | 'false' | null) ?? null,
        output: done.output ?? {},
      };
    try {
      const actorId = await automationActorId(em, e.enrolledBy);
      const ctx: Ctx = { em, actor: automationActor(e.workspaceId, actorId) };
      const context = await buildContext(em, e, begun);
      switch (node.type) {
        case 'send_email':
        case 'send_sms':
          return await sendStep(deps, em, ctx, e, node, context, input.deferrals === true);
        case 'create_task':
        case 'create_recall':
        case 'update_field':
        case 'set_access':
          return await crmStep(em, ctx, e, node, context);
        case 'ai_condition':
        case 'ai_analyzer':
          return await aiStep(deps, em, e, node, context);
        case 'condition': {
          const check = checkCondition(
            { field: String(node.data.field), operator: node.data.operator as never, value: node.data.value },
            context,
            { ...PLACEHOLDERS, now: Date.now(), timezone: e.snapshot.settings.sendSettings.timezone },
          );
          const handle = check.passed ? 'true' : 'false';
          const output = { actual: check.actual as never, expected: check.expected as never, passed: check.passed };
          await upsertStep(em, e, node.id, node.type, { status: 'completed', output, handle });
          return { status: 'completed', handle, output };
        }
        default:
          return stepFail(`unknown node type ${node.type}`);
      }
    } catch (err) {
      // Not a failure: the mailbox's next send slot is later; Temporal retries the step then.
      if (err instanceof DeferredStep)
        throw ApplicationFailure.create({
          message: `deferred ${err.waitMs} ms (the mailbox's send interval or cap)`,
          type: 'SequenceStepDeferred',
          nextRetryDelay: err.waitMs,
        });
      const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
      const permanent = isPermanentError(err);
      log.warn(
        { enrollmentId: e._id, nodeId: node.id, code: err instanceof DomainError ? err.code : undefined, permanent },
        'sequence step failed',
      );
      await upsertStep(forkForWorkspace(opts.orm.em, input.workspaceId), e, node.id, node.type, {
        status: 'failed',
        error: message,
      }).catch(() => undefined);
      if (permanent) throw ApplicationFailure.nonRetryable(message, SEQUENCE_FAILURE_TYPES.permanent);
      throw err;
    }
  }
}
