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
