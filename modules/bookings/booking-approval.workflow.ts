/**
 * One pending booking's approval (`booking-approval:<workspaceId>:<bookingId>`): notify the
 * approvers, remind them on durable timers, and at the deadline apply onTimeout. `approve` and
 * `reject` are updates (the API caller gets the outcome); the decision is an activity's
 * conditional update of the row, so a cancel that got there first makes the update fail (409).
 * The `bookingClosed` signal (booking cancelled) ends the run. Input: ids and times only.
 * `decide` is the durable twin of an update the API could not get confirmed in time (no worker):
 * both carry the request's command id and the first one decides.
 * Since the `approval-reminder-offsets` patch: reminders at `reminderHours` before the deadline, each
 * once per deadline, queued as outbox events by an activity (the e-mails go out through the outbox's
 * retries, never holding the timers back); `deadlineMoved` (a reschedule) restarts the deadline and
 * its reminders.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { createBookingActivities } from './bookings.activities';
import type { DecisionArgs, DecisionResult } from './approval-types';
import {
  approveUpdate,
  closedSignal,
  deadlineMovedSignal,
  decideSignal,
  rejectUpdate,
  type BookingApprovalInput,
} from './booking-approval.messages';

type Activities = ReturnType<typeof createBookingActivities>;

/** Patch id: approver notices run beside the deadline timer instead of before it. */
const NOTICES_BESIDE_DEADLINE = 'approval-notices-beside-deadline';
/** Patch id: reminders at offsets before a movable deadline, queued through the outbox. */
const REMINDER_OFFSETS = 'approval-reminder-offsets';

// The decision (a conditional update of the row): retried every second for up to 10 minutes of a database outage, so
// a deadline that fell due meanwhile is applied within a second of the database's return.
const { decideBooking } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 1, maximumInterval: '1 second', maximumAttempts: 600 },
});
const { notifyBookingApprovers } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', maximumInterval: '5 minutes', maximumAttempts: 10 },
});
// A notice is one row update and one outbox event: retried through a database outage of up to about an hour.
const { queueApproverNotice } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 120 },
});

export async function bookingApprovalWorkflow(input: BookingApprovalInput): Promise<string> {
  const ids = { workspaceId: input.workspaceId, bookingId: input.bookingId };
  let outcome: string | null = null;
  let busy = false;
  /** Decisions by command id: an update and its signal twin (API deadline) with one id decide once. */
  const commands = new Map<string, Promise<DecisionResult>>();
  const run = async (decision: 'approve' | 'reject', args: DecisionArgs): Promise<DecisionResult> => {
    busy = true;
    try {
      const result = await decideBooking({
        ...ids,
        decision,
        userId: args.userId,
        notes: args.notes,
        reason: args.reason,
        ...(args.commandId ? { commandId: args.commandId } : {}),
        ...(args.via ? { via: args.via } : {}),
      });
      if (!result.decided) {
        outcome = result.status;
        throw ApplicationFailure.nonRetryable(
          `status: the booking is ${result.status}; it is no longer pending`,
          'invalid_state',
        );
      }
      outcome = result.status;
      return result;
    } finally {
      busy = false;
    }
  };
  const decide =
    (decision: 'approve' | 'reject') =>
    (args: DecisionArgs): Promise<DecisionResult> => {
      const known = args.commandId ? commands.get(args.commandId) : undefined;
      if (known) return known;
      const result = run(decision, args);
      if (args.commandId) commands.set(args.commandId, result);
      return result;
    };
  const open = (args: DecisionArgs): void => {
    if (args?.commandId && commands.has(args.commandId)) return; // the same command again: its outcome
    if (outcome !== null || busy)
      throw new Error('status: the booking is no longer pending (a decision was made or is in progress)');
  };
  setHandler(approveUpdate, decide('approve'), { validator: open });
  setHandler(rejectUpdate, decide('reject'), { validator: open });
  // A decision that came too late or twice is dropped, as its update's validator would refuse it.
  setHandler(decideSignal, async (args) => {
    if (commands.has(args.commandId) || outcome !== null || busy) return;
    if (args.name !== approveUpdate.name && args.name !== rejectUpdate.name) return;
    await decide(args.name === approveUpdate.name ? 'approve' : 'reject')(args).catch(() => undefined);
  });
  setHandler(closedSignal, () => {
    outcome ??= 'closed';
  });
  let deadline = Date.parse(input.deadlineAt);
  let generation = input.generation ?? 0;
  let moved = false;
  setHandler(deadlineMovedSignal, (move) => {
    // A late or repeated signal of an older reschedule changes nothing.
    if (move.generation <= generation) return;
    generation = move.generation;
    deadline = Date.parse(move.deadlineAt);
    moved = true;
  });

  /** The run since REMINDER_OFFSETS: request, reminders at offsets before a movable deadline, then the deadline. */
  async function remindUntilDecided(): Promise<void> {
    const hourMs = input.hourMs ?? 3_600_000;
    const hours = input.reminderHours ?? [];
    const sent = new Set<string>();
    const notices: Promise<unknown>[] = [];
    // A notice that cannot be queued after its retries must not stop the deadline.
    const queue = (kind: 'request' | 'reminder', reminderHours?: number) =>
      notices.push(
        queueApproverNotice({ ...ids, generation, kind, ...(reminderHours ? { reminderHours } : {}) }).catch(
          () => undefined,
        ),
      );
    queue('request');
    for (;;) {
      while (outcome === null && Date.now() < deadline) {
        const now = Date.now();
        const open = hours.filter((h) => !sent.has(`${generation}:${h}`));
        // Due (or missed while no worker ran): one reminder, the latest due; the earlier ones are not sent late.
        const due = open.filter((h) => deadline - h * hourMs <= now);
        if (due.length) {
          for (const h of due) sent.add(`${generation}:${h}`);
          if (!busy) queue('reminder', Math.min(...due));
          continue;
        }
        const next = Math.min(deadline, ...open.map((h) => deadline - h * hourMs));
        moved = false;
        if (await condition(() => (outcome !== null && !busy) || moved, Math.max(1, next - now))) {
          if (moved) continue;
          break;
        }
      }
      // A decision in flight at the deadline finishes first; only an undecided booking times out.
      await condition(() => !busy);
      if (outcome !== null) break;
      busy = true;
      const result = await decideBooking({
        ...ids,
        decision: input.onTimeout,
        userId: '',
        timeout: true,
        deadlineAt: new Date(deadline).toISOString(),
      });
      busy = false;
      if (result.movedTo) {
        // The row's deadline is later (a reschedule whose signal did not arrive): wait for that one.
        deadline = Date.parse(result.movedTo.deadlineAt);
        generation = Math.max(generation, result.movedTo.generation);
        continue;
      }
      outcome = result.status;
      break;
    }
    // A notice still being queued finds the booking decided and queues nothing (queueApproverNotice checks).
    await Promise.all(notices);
  }

  if (patched(REMINDER_OFFSETS)) {
    await remindUntilDecided();
    await condition(allHandlersFinished);
    return outcome ?? 'closed';
  }

  // A notice that cannot be sent after its retries must not stop the deadline.
  const notify = (kind: 'request' | 'reminder', n: number) =>
    notifyBookingApprovers({ ...ids, kind, n }).catch(() => undefined);
  // Notices go beside the deadline's timer: one retried through a mail outage used to hold the timer back, and
  // the booking timed out when the notice gave up or went through (the soak saw 5 s late). Runs recorded
  // before this wait for each notice first (the patch keeps their histories replaying).
  const beside = patched(NOTICES_BESIDE_DEADLINE);
  const notices: Promise<unknown>[] = [];
  const send = async (kind: 'request' | 'reminder', n: number): Promise<void> => {
    if (beside) notices.push(notify(kind, n));
    else await notify(kind, n);
  };
  await send('request', 0);
  const fixedDeadline = Date.parse(input.deadlineAt);
  let reminders = 0;
  while (outcome === null && Date.now() < fixedDeadline) {
    const next = input.reminderEveryMs ? Math.min(fixedDeadline, Date.now() + input.reminderEveryMs) : fixedDeadline;
    if (await condition(() => outcome !== null && !busy, Math.max(1, next - Date.now()))) break;
    if (outcome === null && !busy && Date.now() < fixedDeadline) await send('reminder', ++reminders);
  }
  // A decision in flight at the deadline finishes first; only an undecided booking times out.
  await condition(() => !busy);
  if (outcome === null) {
    busy = true;
    const result = await decideBooking({ ...ids, decision: input.onTimeout, userId: '', timeout: true });
    outcome = result.status;
    busy = false;
  }
  // A notice still being retried finds the booking decided and sends nothing (notifyApprovers checks).
  await Promise.all(notices);
  await condition(allHandlersFinished);
  return outcome;
}
