/**
 * One sequence enrollment: walks the snapshot it was started with from the start node. Waits and
 * send windows (business hours, weekends, SMS quiet hours) are durable timers computed with the
 * workflow's own clock; every node's effect is one activity (idempotent per enrollment + node), run
 * as a local activity inside the workflow task that reached it (input.localSteps);
 * status, current step and next action time are mirrored to Postgres by local activities.
 * pause / resume / unenroll are updates with validators (the API caller gets an answer); exit
 * conditions arrive as the `exit` signal.
 */
import {
  type ActivityOptions,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { createSequenceActivities } from './sequence.activities';
import {
  commandSignal,
  exitSignal,
  pauseUpdate,
  resumeUpdate,
  stateQuery,
  unenrollUpdate,
  waitQuery,
  type CommandArgs,
  type EnrollmentState,
  type EnrollmentWait,
  type EnrollmentWorkflowInput,
  type PauseArgs,
} from './sequence-enrollment.messages';
import { nextSendTime } from './send-window.pure';
import {
  DAY_MS,
  enrollmentGraph,
  pauseRefusal,
  resumeRefusal,
  skipped,
  stepOf,
  stepRetrySettings,
  waitAnswer,
  unenrollRefusal,
  type OpenStep,
} from './sequence-enrollment-walk.pure';
import type { ExitReason, MirrorInput, SendWaitReason, StepActivityResult, WorkflowNode } from './types';

type Activities = ReturnType<typeof createSequenceActivities>;

// Database writes of the run's own rows: retried every second while the database is away, so a step (a wait's end)
// is recorded within a second of its return (the soak measured 3-4 s with a backoff that doubled up to a minute).
const bookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 1, maximumInterval: '1 second' },
});

/** Validators reject with this type; the client maps it to 409 invalid_state. */
const invalidState = (message: string): never => {
  throw ApplicationFailure.nonRetryable(message, 'invalid_state');
};

export async function sequenceEnrollmentWorkflow(input: EnrollmentWorkflowInput): Promise<EnrollmentState> {
  // Runs started with this patch let the send step decide when it may go out (the recipient's zone, the mailbox's
  // caps and interval) and wait here on a durable timer (StepActivityInput.deferrals); older histories replay the
  // send-window check with the sequence's zone and interval retries.
  const recipientTime = patched('sequence-recipient-time');
  const scale = input.waitScale ?? 1;
  const settings = stepRetrySettings(input, scale);
  // Permanent step errors are non-retryable (activity side); transient ones (SMTP down, an e-mail
  // claim still in progress after a crash) retry for long enough to outlast the claim's stale window.
  const stepOptions: ActivityOptions = {
    startToCloseTimeout: input.stepTimeoutMs ?? '2 minutes',
    retry: { ...settings, nonRetryableErrorTypes: ['SequenceStepPermanentError'] },
  };
  const acts = proxyActivities<Activities>(stepOptions);
  const localActs = proxyLocalActivities<Activities>(stepOptions);
  const ids = { workspaceId: input.workspaceId, enrollmentId: input.enrollmentId };
  const mirror = (m: Omit<MirrorInput, 'workspaceId' | 'enrollmentId'>) => bookkeeping.sequenceMirror({ ...ids, ...m });
  const iso = (ms: number): string => new Date(ms).toISOString();

  let status = 'active' as 'active' | 'paused';
  const isPaused = (): boolean => status === 'paused';
  let pausedUntil: number | null = null;
  let exit: {
    reason: ExitReason;
    event: 'sequence_exited' | 'sequence_unenrolled';
    error?: string;
    commandId?: string;
  } | null = null;
  /** Ids of the API commands applied (update or its signal twin): a repeat is not applied again. */
  const applied = new Set<string>();
  const seen = (args: CommandArgs | undefined): boolean => Boolean(args?.commandId && applied.has(args.commandId));
  const mark = (args: CommandArgs | undefined): { commandId?: string } => {
    if (!args?.commandId) return {};
    applied.add(args.commandId);
    return { commandId: args.commandId };
  };
  let finished: 'completed' | 'exited' | null = null;
  let current: string | null = null;
  let finishing: Promise<unknown> | null = null;
  /** A wait the last step activity already recorded as started (StepActivityInput.then), with its deadline. */
  let parked: { nodeId: string; until: number; wakeAt?: number } | null = null;

  /** A wait recorded as started that the run never reached (it ended during the step before) did not happen. */
  const unreachedWait = () => {
    if (!parked) return {};
    const step = skipped(
      { nodeId: parked.nodeId, nodeType: 'wait', output: {} },
      'the enrollment ended before this wait',
    );
    parked = null;
    return { step };
  };

  /** A send the step deferred (recipientTime): why and until when (ISO, the step's own instant). */
  let deferral: { reason: SendWaitReason; until: string } | null = null;
  /** A wait step or (older runs) a send held for the sequence's send window: its deadline, for waitQuery. */
  let sleeping: { kind: 'wait_step' | 'send_window'; until: number } | null = null;

  /** The step recorded as waiting that the run is in now: a wait, or a send held for its send window. */
  let waitingIn: OpenStep | null = null;
  /** A run that ends (exit, unenroll) in a wait closes it as skipped instead of leaving it waiting. */
  const interruptedWait = () => {
    if (!waitingIn) return {};
    const step = skipped(waitingIn, 'the enrollment ended during this wait');
    waitingIn = null;
    return { step };
  };

  const finish = (): Promise<unknown> => {
    const unreached = finishing ? {} : parked ? unreachedWait() : exit ? interruptedWait() : {};
    finishing ??= exit
      ? mirror({
          status: 'exited',
          exitReason: exit.reason,
          event: exit.event,
          nextActionAt: null,
          pausedUntil: null,
          error: exit.error ?? null,
          ...(exit.commandId ? { commandId: exit.commandId } : {}),
          ...unreached,
        })
      : mirror({ status: 'completed', event: 'sequence_completed', nextActionAt: null, pausedUntil: null });
    finished = exit ? 'exited' : 'completed';
    return finishing;
  };

  setHandler(stateQuery, () => ({
    status: finished ?? status,
    currentNodeId: current,
    pausedUntil: pausedUntil === null ? null : iso(pausedUntil),
    exitReason: exit?.reason ?? null,
  }));

  setHandler(waitQuery, (): EnrollmentWait =>
    waitAnswer({ status, finished, exiting: exit !== null, current, pausedUntil, deferral, sleeping }),
  );
  /** A resumed run still holding a deferred send shows that reason again (the pause replaced it). */
  const stillDeferred = (): { waitReason?: SendWaitReason } => (deferral ? { waitReason: deferral.reason } : {});

  const commandState = () => ({ status, finished, exiting: exit !== null });
  const refuse = (why: string | null): void => {
    if (why !== null) invalidState(why);
  };
  const pauseValidator = (args: PauseArgs): void => {
    if (!seen(args)) refuse(pauseRefusal(commandState(), args?.durationDays));
  };
  const pause = async (args: PauseArgs) => {
    if (seen(args)) return { paused: true as const };
    const command = mark(args);
    status = 'paused';
    pausedUntil = args.durationDays ? Date.now() + Math.round(args.durationDays * DAY_MS * scale) : null;
    await mirror({
      status: 'paused',
      event: 'sequence_paused',
      pausedUntil: pausedUntil === null ? null : iso(pausedUntil),
      ...command,
    });
    return { paused: true as const };
  };
  const resumeValidator = (args?: CommandArgs): void => {
    if (!seen(args)) refuse(resumeRefusal(commandState()));
  };
  const resume = async (args?: CommandArgs) => {
    if (seen(args)) return { resumed: true as const };
    const command = mark(args);
    status = 'active';
    pausedUntil = null;
    await mirror({ status: 'active', event: 'sequence_resumed', pausedUntil: null, ...command, ...stillDeferred() });
    return { resumed: true as const };
  };
  const unenrollValidator = (args?: CommandArgs): void => {
    if (!seen(args)) refuse(unenrollRefusal(commandState()));
  };
  const unenroll = async (args?: CommandArgs) => {
    if (seen(args)) {
      await finishing;
      return { unenrolled: true as const };
    }
    exit = { reason: 'manual', event: 'sequence_unenrolled', ...mark(args) };
    await finish();
    return { unenrolled: true as const };
  };
  setHandler(pauseUpdate, pause, { validator: pauseValidator });
  setHandler(resumeUpdate, resume, { validator: resumeValidator });
  setHandler(unenrollUpdate, unenroll, { validator: unenrollValidator });
  // The durable twin of an update the API could not get confirmed in time: applied once, or dropped
  // when its update's validator would refuse it now.
  setHandler(commandSignal, async (args) => {
    const [validate, apply] =
      args.name === pauseUpdate.name
        ? [pauseValidator, pause]
        : args.name === resumeUpdate.name
          ? [resumeValidator, resume]
          : [unenrollValidator, unenroll];
    if (seen(args)) return;
    try {
      validate(args);
    } catch {
      return;
    }
    await apply(args);
  });

  setHandler(exitSignal, ({ reason }) => {
    if (!finished && !exit) exit = { reason, event: 'sequence_exited' };
  });

  /** Holds while paused; an auto-resume (durationDays) is recorded like a manual one. False once exiting. */
  const whilePaused = async (): Promise<boolean> => {
    while (status === 'paused' && !exit) {
      if (pausedUntil === null) {
        await condition(() => exit !== null || status !== 'paused');
        continue;
      }
      const left = pausedUntil - Date.now();
      if (left <= 0) {
        status = 'active';
        pausedUntil = null;
        await mirror({ status: 'active', event: 'sequence_resumed', pausedUntil: null, ...stillDeferred() });
        break;
      }
      await condition(() => exit !== null || status !== 'paused', left);
    }
    return !exit;
  };

  /** A durable timer that a pause holds (the deadline keeps running) and an exit ends (false). */
  const sleepUntil = async (deadline: number): Promise<boolean> => {
    for (;;) {
      if (exit) return false;
      if (status === 'paused') {
        if (!(await whilePaused())) return false;
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) return true;
      await condition(() => exit !== null || status === 'paused', left);
    }
  };

  const { first, nextOf, waitMsOf, waitAfter } = enrollmentGraph(input, scale);
  // A retry begins at the node its failed enrollment failed at (input.resumeAt); every other run at the start.
  let node: WorkflowNode | null = first();
  while (node) {
    if (exit || (isPaused() && !(await whilePaused()))) break;
    current = node.id;
    let result: StepActivityResult;
    if (node.type === 'start' || node.type === 'stop') {
      // The enrollment row was written with its start step (input.startRecorded): nothing to mirror.
      if (!(node.type === 'start' && input.startRecorded))
        await mirror({ currentNodeId: node.id, step: { nodeId: node.id, nodeType: node.type, status: 'completed' } });
      if (node.type === 'stop') break;
      result = { status: 'completed' };
    } else if (node.type === 'wait') {
      const ms = waitMsOf(node);
      // Already recorded as started by the step before (parked), or recorded now.
      const recorded: { until: number; wakeAt?: number } | null = parked?.nodeId === node.id ? parked : null;
      const until = recorded ? recorded.until : Date.now() + ms;
      // The wait began when it was recorded; it ends when the run goes on (a pause or a worker outage holds it).
      const began = until - ms;
      if (recorded) parked = null;
      const waiting: OpenStep = { nodeId: node.id, nodeType: 'wait', output: { until: iso(until), ms } };
      if (!recorded)
        await mirror({ currentNodeId: node.id, nextActionAt: iso(until), step: stepOf(waiting, 'waiting') });
      waitingIn = waiting;
      sleeping = { kind: 'wait_step', until };
      if (!(await sleepUntil(recorded?.wakeAt ?? until))) break;
      sleeping = null;
      waitingIn = null;
      await mirror({
        nextActionAt: null,
        step: {
          nodeId: node.id,
          nodeType: 'wait',
          status: 'completed',
          output: { until: iso(until), ms, waitedMs: Math.max(0, Date.now() - began) },
        },
      });
      result = { status: 'completed' };
    } else {
      const isSend = node.type === 'send_email' || node.type === 'send_sms';
      if (isSend && !recipientTime) {
        const at = nextSendTime(
          Date.now(),
          input.sendSettings,
          node.type === 'send_sms' ? 'sms' : 'email',
          node.data.ignoreBusinessHours === true,
        );
        if (at > Date.now()) {
          const waiting: OpenStep = {
            nodeId: node.id,
            nodeType: node.type,
            output: { scheduledFor: iso(at), reason: 'send window' },
          };
          await mirror({ currentNodeId: node.id, nextActionAt: iso(at), step: stepOf(waiting, 'waiting') });
          waitingIn = waiting;
          sleeping = { kind: 'send_window', until: at };
          if (!(await sleepUntil(at))) break;
          sleeping = null;
          waitingIn = null;
        }
      }
      /** An exit or unenroll arrived while a deferred send waited: the run ends (the step closes as skipped). */
      let endedWaiting = false;
      try {
        const then = waitAfter(node);
        // input.localSteps: a local activity (types.ts); runs started before that keep their remote activities.
        const step = input.localSteps ? localActs : acts;
        const args = {
          ...ids,
          node,
          ...(then ? { then } : {}),
          ...(isSend && recipientTime ? { deferrals: true } : {}),
        };
        result = await step.sequenceRunStep(args);
        // Not yet (the recipient's send window, the mailbox's cap or interval): the step recorded why and until when;
        // the run sleeps on a durable timer (a pause holds it, an exit ends it) and runs the step again.
        while (result.status === 'deferred') {
          const until = result.nextActionAt ?? iso(Date.now());
          deferral = { reason: result.waitReason ?? 'send_window', until };
          waitingIn = { nodeId: node.id, nodeType: node.type, output: result.output ?? {} };
          if (!(await sleepUntil(Date.now() + (result.waitLeftMs ?? Math.max(0, Date.parse(until) - Date.now()))))) {
            deferral = null;
            endedWaiting = true;
            break;
          }
          deferral = null;
          waitingIn = null;
          result = await step.sequenceRunStep(args);
        }
        if (then && result.waitUntil)
          parked = {
            nodeId: then.nodeId,
            until: Date.parse(result.waitUntil),
            // The same deadline on this run's clock (types.ts waitLeftMs); histories from before it have none.
            ...(result.waitLeftMs !== undefined ? { wakeAt: Date.now() + result.waitLeftMs } : {}),
          };
      } catch (err) {
        if (input.failureBehavior === 'continue') {
          result = { status: 'failed' };
        } else {
          const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
          exit ??= { reason: 'error', event: 'sequence_exited', error: `${node.id}: ${String(cause).slice(0, 500)}` };
          break;
        }
      }
      if (endedWaiting) break;
    }
    if (result.exit) {
      exit ??= { reason: result.exit, event: 'sequence_exited' };
      break;
    }
    // A branching node whose step failed (failureBehavior continue) leaves through "false", never an arbitrary edge.
    const handle = result.handle ?? (node.type === 'condition' || node.type === 'ai_condition' ? 'false' : null);
    const next = nextOf(node, handle);
    // An AI condition answering "no" with nowhere to go is the AI deciding the contact leaves.
    if (!next && node.type === 'ai_condition' && result.status !== 'failed' && handle === 'false') {
      exit ??= { reason: 'ai_decision', event: 'sequence_exited' };
      break;
    }
    node = next;
  }
  // A stop node, the end of the path, or an exit: recorded once (an unenroll update may already have).
  if (!finished) await finish();
  else await finishing;
  // An unenroll finished the run while its step was recording the wait that follows.
  if (parked) await mirror(unreachedWait());
  await condition(allHandlersFinished);
  return {
    status: finished ?? 'completed',
    currentNodeId: current,
    pausedUntil: null,
    exitReason: exit ? (exit as { reason: ExitReason }).reason : null,
  };
}
