/**
 * The booking approval workflow's contract, declared once: its input and its updates and signals
 * (descriptors the workflow registers and the API sends: modules/bookings/booking-approval.workflow.ts,
 * approval.service.ts). Workflow-safe: imports only @temporalio/workflow and types. The names are on
 * the wire (histories, runs in flight): never rename one.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { DecisionArgs, DecisionResult } from './approval-types';

export interface BookingApprovalInput {
  workspaceId: string;
  bookingId: string;
  /** ISO time after which nobody can decide any more and onTimeout applies. */
  deadlineAt: string;
  /** Interval between reminders to the approvers (ms); null: no reminders. Runs before reminder offsets only. */
  reminderEveryMs: number | null;
  /** Hours before the deadline at which the approvers are reminded (each once per deadline). */
  reminderHours?: number[];
  /** The length of one of those hours in ms (scaled in tests by BOOKING_TIME_SCALE). */
  hourMs?: number;
  /** The booking's rescheduleCount at start; a reschedule moves the deadline with a higher one. */
  generation?: number;
  onTimeout: 'reject' | 'approve';
}

/** The durable twin of approve/reject (decideSignal): the decision's arg, its command id and its update's name. */
export interface DecideSignalArgs extends DecisionArgs {
  /** The name of the update it stands for: approveUpdate or rejectUpdate. */
  name: string;
  commandId: string;
}

/** Updates with a validator: the API caller gets the outcome (409 when the booking is no longer pending). */
export const approveUpdate = defineUpdate<DecisionResult, [DecisionArgs]>('approve');
export const rejectUpdate = defineUpdate<DecisionResult, [DecisionArgs]>('reject');
/** Sent when the update is not confirmed in time (no worker): durable at once; the first of the two decides. */
export const decideSignal = defineSignal<[DecideSignalArgs]>('decide');
/** A reschedule of the pending booking restarted its approval deadline (ISO) for that generation. */
export interface DeadlineMove {
  deadlineAt: string;
  generation: number;
}
export const deadlineMovedSignal = defineSignal<[DeadlineMove]>('deadlineMoved');
/** The booking left pending outside the workflow (cancelled): the run ends. */
export const closedSignal = defineSignal('bookingClosed');
