/** Shapes shared by the booking approval workflow, its activities and the API (pure; no I/O). */

export interface BookingApprovalInput {
  workspaceId: string;
  bookingId: string;
  /** ISO time after which nobody can decide any more and onTimeout applies. */
  deadlineAt: string;
  /** Interval between reminders to the approvers (ms); null: no reminders. */
  reminderEveryMs: number | null;
  onTimeout: 'reject' | 'approve';
}

export interface DecisionArgs {
  /** The deciding user (API key's user). */
  userId: string;
  /**
   * The API request's command id (same Idempotency-Key, same id): the update and the `decide`
   * signal carrying it are applied once, and the row records it (Booking.decisionId).
   */
  commandId?: string;
  notes?: string;
  reason?: string;
}

export interface DecisionResult {
  /** True when this decision moved the booking out of pending. */
  decided: boolean;
  status: string;
}

export interface DecideActivityInput extends DecisionArgs {
  workspaceId: string;
  bookingId: string;
  decision: 'approve' | 'reject';
  /** The deadline decided, not a person. */
  timeout?: boolean;
}

/** Update and signal names (the workflow defines them with these names). */
export const APPROVE_UPDATE = 'approve';
export const REJECT_UPDATE = 'reject';
/** The durable twin of approve/reject, sent when the update is not confirmed in time (no worker). */
export const DECIDE_SIGNAL = 'decide';
export interface DecideSignalArgs extends DecisionArgs {
  /** The update it stands for: APPROVE_UPDATE or REJECT_UPDATE. */
  name: string;
  commandId: string;
}
/** The booking left pending outside the workflow (cancelled): the run ends. */
export const CLOSED_SIGNAL = 'bookingClosed';
