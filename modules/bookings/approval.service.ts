/**
 * Booking approval. A pending booking has one Temporal workflow `booking-approval:<ws>:<id>`
 * (modules/bookings/booking-approval.workflow.ts): it notifies the approvers, reminds them on durable
 * timers and applies onApprovalTimeout at the deadline. `approve`/`reject` reach it as Temporal
 * updates and answer synchronously; the decision itself is one conditional update of the row
 * (pending → approved/rejected) here, so Postgres stays the source of truth whoever decides.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { emit } from '../../platform/outbox/emit';
import { inTransaction } from '../../platform/shared/tx';
import { bookingApprovalKind } from './booking-approval.kind';
import { startForRow, type WorkflowPort } from '../../platform/workflow-port';
import type { DecideActivityInput, DecisionResult } from './approval-types';
import {
  approveUpdate,
  closedSignal,
  deadlineMovedSignal,
  decideSignal,
  rejectUpdate,
  type BookingApprovalInput,
} from './booking-approval.messages';
import { lockAgents } from './agent-locks';
import { Booking, BookingConfig } from './booking.entity';
import { bookingEventPayload, getBooking, removeCalendarEvent, type BookingSideDeps } from './bookings.service';

const HOUR = 3_600_000;

/** decideOnce's answer when a reschedule moved the booking to another agent between its read and its lock. */
const AGENT_MOVED = Symbol('agent moved');

/**
 * The one place a pending booking is decided (activity of the workflow, or the API when no run exists). One agent's
 * lock per transaction: when a reschedule moved the booking to another agent between the read and the lock, nothing
 * is written, the transaction ends (its lock with it) and the next one locks that agent (at most 3 tries). Waiting
 * for the second agent's lock while holding the first's could deadlock with a reschedule, which takes both in
 * lockAgents' order.
 */
export async function decideBooking(
  ctx: Ctx,
  input: Omit<DecideActivityInput, 'workspaceId'>,
): Promise<DecisionResult> {
  for (let tries = 1; ; tries++) {
    const result = await decideOnce(ctx, input, tries < 3);
    if (result !== AGENT_MOVED) return result;
  }
}

async function decideOnce(
  ctx: Ctx,
  input: Omit<DecideActivityInput, 'workspaceId'>,
  mayRetry: boolean,
): Promise<DecisionResult | typeof AGENT_MOVED> {
  const to = input.decision === 'approve' ? 'approved' : 'rejected';
  return inTransaction(ctx, async () => {
    const now = new Date();
    let booking = await ctx.em.findOne(Booking, { _id: input.bookingId }, { refresh: true });
    // A reschedule restarted the deadline and the run missed the signal: the row's later deadline stands.
    if (
      input.timeout &&
      input.deadlineAt &&
      booking?.status === 'pending' &&
      booking.approvalDeadlineAt &&
      booking.approvalDeadlineAt.getTime() > Date.parse(input.deadlineAt)
    )
      return {
        decided: false,
        status: 'pending',
        movedTo: { deadlineAt: booking.approvalDeadlineAt.toISOString(), generation: booking.rescheduleCount },
      };
    let changed = 0;
    // The agent's lock before the row, as every write of a hold takes them (availability.ts lockAgents); conditional on
    // the agent too, so a reschedule to another agent in between is met by locking that one (in a new transaction).
    if (booking?.status === 'pending') {
      const agentId = booking.agentId;
      await lockAgents(ctx.em, ctx.actor.workspaceId, [agentId]);
      changed = await ctx.em.nativeUpdate(
        Booking,
        { _id: input.bookingId, status: 'pending', agentId },
        {
          status: to,
          decidedAt: now,
          decidedBy: input.timeout ? null : input.userId,
          decisionId: input.commandId ?? null,
          updatedAt: now,
          ...(to === 'approved'
            ? { decisionNotes: input.notes ?? null }
            : { rejectionReason: input.reason ?? (input.timeout ? 'approval deadline passed' : null) }),
        },
      );
      booking = await ctx.em.findOne(Booking, { _id: input.bookingId }, { refresh: true });
      if (!changed && mayRetry && booking?.status === 'pending' && booking.agentId !== agentId) return AGENT_MOVED;
    }
    if (!booking) return { decided: false, status: 'missing' };
    if (!changed) return { decided: false, status: booking.status };
    // A rejected booking frees its slot: its calendar event goes too.
    if (to === 'rejected') await removeCalendarEvent(ctx, booking);
    emit(ctx, {
      type: to === 'approved' ? 'booking_approved' : 'booking_rejected',
      entityType: 'booking',
      entityId: booking._id,
      payload: bookingEventPayload(booking, {
        decidedBy: input.timeout ? 'deadline' : 'user',
        ...(input.timeout ? {} : { via: input.via ?? 'api' }),
        ...(input.notes ? { notes: input.notes } : {}),
        ...(input.reason ? { reason: input.reason } : {}),
      }),
    });
    return { decided: true, status: to };
  });
}

/** Workspace-bound context for workflow activities (the decision is attributed to the deciding user or the agent). */
export function activityCtx(orm: MikroORM, workspaceId: string, userId: string): Ctx {
  return { em: forkForWorkspace(orm.em, workspaceId), actor: { workspaceId, userId, role: 'owner', scopes: [] } };
}

export interface ApprovalDeps {
  workflows: WorkflowPort;
  log: Logger;
  timeScale: number;
}

/** The approval deadline of a booking that became pending (or was rescheduled) at `from`. */
export const approvalDeadlineFrom = (config: BookingConfig, from: Date, timeScale: number): Date =>
  new Date(from.getTime() + config.approvalDeadlineHours * HOUR * timeScale);

export function approvalInput(booking: Booking, config: BookingConfig, timeScale: number): BookingApprovalInput {
  return {
    workspaceId: booking.workspaceId,
    bookingId: booking._id,
    deadlineAt: approvalDeadlineFrom(config, booking.createdAt, timeScale).toISOString(),
    // Runs before the reminder offsets read an interval; they are given none.
    reminderEveryMs: null,
    reminderHours: config.approvalReminderHours ?? [],
    hourMs: Math.round(HOUR * timeScale),
    generation: booking.rescheduleCount,
    onTimeout: config.onApprovalTimeout,
  };
}

/** Side effects of bookings that go through the workflow engine (wired by the router with its port). */
export function bookingSideDeps(deps: ApprovalDeps): BookingSideDeps {
  return {
    async startApproval(ctx, booking, config) {
      const input = approvalInput(booking, config, deps.timeScale);
      const workflowId = bookingApprovalKind.workflowId(booking.workspaceId, booking._id);
      // The mirror of the deadline follows the (test-scaled) workflow input.
      await ctx.em.nativeUpdate(
        Booking,
        { _id: booking._id },
        { approvalWorkflowId: workflowId, approvalDeadlineAt: new Date(input.deadlineAt) },
      );
      booking.approvalWorkflowId = workflowId;
      booking.approvalDeadlineAt = new Date(input.deadlineAt);
      await startForRow(
        deps.workflows,
        {
          kind: bookingApprovalKind,
          workspaceId: booking.workspaceId,
          id: booking._id,
          input,
          meta: {
            workspaceId: booking.workspaceId,
            bookingId: booking._id,
            configId: config._id,
            configName: config.name,
            deadlineAt: input.deadlineAt,
          },
        },
        {
          log: deps.log,
          retryable: false,
          what: 'the booking approval',
          // Nobody could decide or time out this booking: it must not keep holding the slot.
          markNotStarted: async (reason) => {
            await ctx.em.nativeUpdate(
              Booking,
              { _id: booking._id, status: 'pending' },
              {
                status: 'cancelled',
                cancelledAt: new Date(),
                cancelReason: reason.slice(0, 1000),
                updatedAt: new Date(),
              },
            );
          },
        },
      );
    },
    approvalDeadlineFrom: (config, from) => approvalDeadlineFrom(config, from, deps.timeScale),
    async moveApproval(workflowId, move) {
      // Lost (engine down): the run finds the later deadline on the row when its own one falls due.
      await deps.workflows
        .signal(workflowId, deadlineMovedSignal, move)
        .catch((err: unknown) =>
          deps.log.warn({ err, workflowId }, 'booking approval: deadline signal failed; the run reads the row'),
        );
    },
    async closeApproval(workflowId) {
      await deps.workflows
        .signal(workflowId, closedSignal)
        .catch((err: unknown) =>
          deps.log.warn(
            { err, workflowId },
            'booking approval: close signal failed; the run decides nothing once the row is not pending',
          ),
        );
    },
  };
}

/**
 * POST /bookings/:id/approve and /reject: through the workflow's update, answered within the
 * engine deadline; when not confirmed in time the decision is recorded (signal) and the port throws
 * 503 `unavailable` with details.recorded. `commandId` (from the Idempotency-Key) makes a retry of a
 * recorded decision answer its outcome once the worker applied it.
 */
export async function decideThroughWorkflow(
  ctx: Ctx,
  id: string,
  decision: 'approve' | 'reject',
  args: { notes?: string; reason?: string; commandId: string; via?: 'email_link' },
  deps: ApprovalDeps,
): Promise<Booking> {
  const booking = await getBooking(ctx, id);
  const to = decision === 'approve' ? 'approved' : 'rejected';
  const notPending = (status: string) =>
    new DomainError('invalid_state', `status: the booking is ${status}; only a pending booking can be ${to}`, {
      current: status,
    });
  // This very request decided it earlier (recorded while the engine was away): its outcome.
  if (booking.status === to && booking.decisionId === args.commandId) return booking;
  if (booking.status !== 'pending') throw notPending(booking.status);
  const call = {
    userId: ctx.actor.userId,
    commandId: args.commandId,
    ...(args.notes !== undefined ? { notes: args.notes } : {}),
    ...(args.reason !== undefined ? { reason: args.reason } : {}),
    ...(args.via ? { via: args.via } : {}),
  };
  let result: DecisionResult;
  try {
    if (!booking.approvalWorkflowId) throw new DomainError('not_found', 'workflow not found');
    const { commandId: _id, ...arg } = call;
    result = await deps.workflows.command(booking.approvalWorkflowId, {
      id: args.commandId,
      update: decision === 'approve' ? approveUpdate : rejectUpdate,
      signal: decideSignal,
      arg,
      what: decision === 'approve' ? 'the approval' : 'the rejection',
    });
  } catch (err) {
    if (!(err instanceof DomainError && err.code === 'not_found')) throw err;
    // No run (finished or never started): the row still decides, under the same condition.
    deps.log.warn({ bookingId: booking._id }, 'booking approval: no running workflow; deciding in the database');
    result = await decideBooking(ctx, { bookingId: booking._id, decision, ...call });
  }
  const fresh = await ctx.em.findOne(Booking, { _id: booking._id }, { refresh: true });
  if (!result.decided && !(fresh!.status === to && fresh!.decisionId === args.commandId))
    throw notPending(fresh!.status);
  return fresh!;
}
