/**
 * Runs one node inside its activity with the step log as the idempotency record:
 *  - a step already `completed`/`skipped` returns its stored output (retry or replay: no second effect);
 *  - `crm` effects commit in the same transaction as their step row, which is locked first, so a
 *    concurrent duplicate attempt waits and then finds it completed;
 *  - external effects run outside a transaction, deduplicated by their provider on the
 *    `${executionId}:${nodeId}` key; the step row is written right after;
 *  - failures record a `failed` row (attempt, resolved input, error) and become Temporal
 *    failures: permanent errors and any error under stop/continue are not retried.
 */
import { activityInfo, ApplicationFailure } from '@temporalio/activity';
import type { AutomationStep, StepStatus } from '../automation.entity';
import { emWithOrigin } from '../engine/origin';
import { maskConfigSecrets } from '../secrets';
import { findStep, isDone, lockStep, writeStep, type StepKey } from '../engine/steps';
import { FAILURE_TYPES, type Context, type NodeActivityInput, type NodeActivityResult } from '../engine/types.pure';
import { automationActor } from '../engine/workspace';
import { DomainError } from '../../../platform/errors';
import { isPermanentError } from './permanent-errors';
import { isDependencyUnavailable } from '../../../platform/shared/unavailable';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import type { AutomationActivityDeps } from './deps';
import type { ActionEnv, ActionResult } from './types';

export interface StepSpec<R> {
  nodeType: 'action' | 'lookup' | 'ai';
  actionType: string | null;
  /** crm: effect + step row in one transaction; external: outside (provider-side idempotency). */
  transactional: boolean;
  /** Resolves the node's input (placeholders, defaults); throws for a bad config. */
  prepare(): R;
  /** A test run records this instead of acting; null: run even in test mode (read-only nodes). */
  testDescription(resolved: R): string | null;
  perform(env: ActionEnv, resolved: R): Promise<ActionResult & { handle?: string | null }>;
  /** Context keys a stored output stands for (so a replayed step feeds later nodes the same way). */
  contextOf?(output: unknown): Context | undefined;
  /** Runs after the step is stored, also on replay (lookup fan-out, itself idempotent). */
  after?(env: ActionEnv, output: unknown): Promise<void>;
}

export function toFailure(err: unknown, failureBehavior: NodeActivityInput['failureBehavior']): ApplicationFailure {
  if (err instanceof ApplicationFailure) return err;
  const message = (err instanceof Error ? err.message : String(err)).slice(0, 2000);
  if (isPermanentError(err)) return ApplicationFailure.nonRetryable(message, FAILURE_TYPES.permanent);
  // Our own database down or restarting is not the action failing: retried under every failureBehavior
  // (the node's retry policy rides out a restart). Outbound calls fail as DomainError, never as this.
  if (!(err instanceof DomainError) && isDependencyUnavailable(err))
    return ApplicationFailure.retryable(message, FAILURE_TYPES.infrastructure);
  if (failureBehavior !== 'retry') return ApplicationFailure.nonRetryable(message, FAILURE_TYPES.actionFailed);
  return ApplicationFailure.retryable(message, 'AutomationActionError');
}

function currentAttempt(): number {
  try {
    return activityInfo().attempt;
  } catch {
    return 1; // called outside an activity (unit tests)
  }
}

function stored(step: AutomationStep, contextOf?: (output: unknown) => Context | undefined): NodeActivityResult {
  return {
    output: step.output,
    status: step.status,
    handle: step.handle ?? null,
    contextPatch: step.status === 'completed' ? contextOf?.(step.output) : undefined,
  };
}

/** runStep's answer, stamped with the time it was given (see NodeActivityResult.endedAt). */
export async function runStep<R>(
  deps: AutomationActivityDeps,
  input: NodeActivityInput,
  spec: StepSpec<R>,
): Promise<NodeActivityResult> {
  const result = await performStep(deps, input, spec);
  return { ...result, endedAt: new Date().toISOString() };
}

async function performStep<R>(
  deps: AutomationActivityDeps,
  input: NodeActivityInput,
  spec: StepSpec<R>,
): Promise<NodeActivityResult> {
  const attempt = currentAttempt();
  const key: StepKey = {
    workspaceId: input.workspaceId,
    executionId: input.executionId,
    nodeId: input.nodeId,
    nodeType: spec.nodeType,
    actionType: spec.actionType,
  };
  const em = emWithOrigin(deps.orm, input.workspaceId, {
    automationId: input.automationId,
    executionId: input.executionId,
    chain: input.chain,
  });
  const env: ActionEnv = {
    em,
    ctx: { em, actor: automationActor(input.workspaceId, input.actorUserId) },
    input,
    deps,
    now: new Date(),
    idempotencyKey: `${input.executionId}:${input.nodeId}`,
  };
  const startedAt = env.now;
  // The step log shows what the node resolved to, with credential headers masked (they are write-only).
  const logged = (resolved: unknown): unknown => maskConfigSecrets(spec.actionType, resolved);
  const finish = async (r: NodeActivityResult): Promise<NodeActivityResult> => {
    if (spec.after && r.status === 'completed') await spec.after(env, r.output);
    return r;
  };

  // Replays of external steps end here; crm steps learn it from the locked row below (one query less).
  if (!spec.transactional) {
    const existing = await findStep(em, input.executionId, input.nodeId);
    if (isDone(existing)) return finish(stored(existing, spec.contextOf));
  }

  let resolved: R | undefined;
  const recordFailure = async (err: unknown): Promise<never> => {
    const failure = toFailure(err, input.failureBehavior);
    await writeStep(forkForWorkspace(deps.orm.em, input.workspaceId), key, {
      status: 'failed',
      attempt,
      startedAt,
      endedAt: new Date(),
      input: logged(resolved ?? null),
      error: failure.message,
    });
    throw failure;
  };
  try {
    resolved = spec.prepare();
  } catch (err) {
    return recordFailure(err);
  }

  const description = input.isTest ? spec.testDescription(resolved) : null;
  if (description !== null) {
    const output = { test: true, wouldDo: description };
    await writeStep(em, key, {
      status: 'skipped',
      attempt,
      startedAt,
      endedAt: new Date(),
      input: logged(resolved),
      output,
    });
    return { output, status: 'skipped', handle: null };
  }

  const complete = (r: ActionResult & { handle?: string | null }) => ({
    status: (r.status ?? 'completed') as StepStatus,
    attempt,
    startedAt,
    endedAt: new Date(),
    input: logged(resolved),
    output: r.output ?? null,
    handle: r.handle ?? null,
    error: null,
  });
  // What the node answers after performing (the step row, `complete`, records the same result).
  const finishPerformed = (r: ActionResult & { handle?: string | null }) =>
    finish({
      output: r.output,
      status: r.status ?? 'completed',
      handle: r.handle ?? null,
      contextPatch: r.contextPatch,
    });
  if (!spec.transactional) {
    try {
      const r = await spec.perform(env, resolved);
      await writeStep(em, key, complete(r));
      return finishPerformed(r);
    } catch (err) {
      return recordFailure(err);
    }
  }

  await em.begin();
  try {
    const step = await lockStep(em, key, attempt, startedAt);
    if (isDone(step)) {
      await em.commit();
      return finish(stored(step, spec.contextOf));
    }
    const r = await spec.perform(env, resolved);
    Object.assign(step, complete(r));
    await em.flush();
    await em.commit();
    return finishPerformed(r);
  } catch (err) {
    await em.rollback().catch(() => undefined);
    return recordFailure(err);
  }
}
