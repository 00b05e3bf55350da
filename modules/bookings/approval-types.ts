/**
 * Shapes shared by the booking approval workflow, its activities and the API (pure types; the input and
 * the messages are in booking-approval.messages.ts).
 */

export interface DecisionArgs {
  /** The deciding user (API key's user). */
  userId: string;
  /**
   * The API request's command id (same Idempotency-Key, same id): the update and its signal twin
   * (decideSignal) carrying it are applied once, and the row records it (Booking.decisionId).
   */
  commandId?: string;
  notes?: string;
  reason?: string;
  /** Set when the approver's one-click e-mail link decided (the event says so). */
  via?: 'email_link';
}

export interface DecisionResult {
  /** True when this decision moved the booking out of pending. */
  decided: boolean;
  status: string;
  /** A timeout that found a later deadline on the row: that deadline and the booking's generation. */
  movedTo?: { deadlineAt: string; generation: number };
}

/** An approver notice to queue (outbox event, at most once per booking, generation and notice). */
export interface ApproverNoticeInput {
  workspaceId: string;
  bookingId: string;
  /** The booking's rescheduleCount the run knows: a notice of an older generation is dropped. */
  generation: number;
  kind: 'request' | 'reminder';
  /** For a reminder: hours before the deadline. */
  reminderHours?: number;
}

export interface DecideActivityInput extends DecisionArgs {
  workspaceId: string;
  bookingId: string;
  decision: 'approve' | 'reject';
  /** The deadline decided, not a person. */
  timeout?: boolean;
  /**
   * With timeout: the deadline the run waited for. A row whose deadline is later (a reschedule restarted it and
   * the run was not told) is not decided; the result carries the row's deadline instead.
   */
  deadlineAt?: string;
}
