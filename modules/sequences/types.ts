/**
 * Shapes shared by the enrollment workflow, its activities and the services that start and steer
 * it (its input and messages: sequence-enrollment.messages.ts). Pure types and constants.
 */

export interface WorkflowNode {
  id: string;
  type: string;
  data: Record<string, unknown>;
}
export interface WorkflowEdge {
  source: string;
  target: string;
  sourceHandle: string | null;
}

export type ExitReason =
  | 'email_reply'
  | 'sms_reply'
  | 'meeting_booked'
  | 'deal_stage'
  | 'lead_status'
  | 'manual'
  | 'ai_decision'
  | 'unsubscribed'
  | 'restarted'
  | 'error';

export interface StepActivityInput {
  workspaceId: string;
  enrollmentId: string;
  node: WorkflowNode;
  /**
   * The node's only way on is this wait: once the step is done the activity also records the wait as started (its
   * step row waiting, the enrollment's current node and next action time) and answers its deadline (`waitUntil`),
   * which the run then sleeps until without a bookkeeping round trip of its own.
   */
  then?: { nodeId: string; waitMs: number };
  /**
   * The run waits for a deferred send itself (runs started with the `sequence-recipient-time` patch): a send step
   * that may not go out yet (the recipient's send window, the mailbox's cap or send interval) answers
   * `status: 'deferred'` with the reason and the instant, records its step row waiting, and the run sleeps on a
   * durable timer until then and runs the step again. Absent (older runs): the run checks the send window with the
   * sequence's zone, and an interval deferral is an activity retry.
   */
  deferrals?: boolean;
}

/** Why a send step waits (the enrollment's and the step's waitReason). */
export type SendWaitReason = 'send_window' | 'mailbox_cap' | 'email_interval';

export interface StepActivityResult {
  status: 'completed' | 'skipped' | 'failed' | 'deferred';
  /** status deferred: why, and until when (ISO) the send waits. */
  waitReason?: SendWaitReason;
  nextActionAt?: string;
  handle?: 'true' | 'false' | null;
  /** An ai_condition decided to leave the sequence. */
  exit?: ExitReason;
  output?: Record<string, unknown>;
  /** The deadline (ISO) of the wait recorded as started for `then`. */
  waitUntil?: string;
  /**
   * How long that wait still had to go when the activity answered. The run sleeps this long rather than until
   * `waitUntil` by its own clock: in a workflow `Date.now()` is the start of the current workflow task, which
   * lags real time by the local activities it ran (a send retried for 7 s made the wait end 7 s late).
   */
  waitLeftMs?: number;
}

export interface MirrorInput {
  workspaceId: string;
  enrollmentId: string;
  /** Status change (with its outbox event) when set. */
  status?: 'active' | 'paused' | 'completed' | 'exited';
  exitReason?: ExitReason | null;
  /** The event to emit for the status change (sequence_paused, …). */
  event?: 'sequence_completed' | 'sequence_exited' | 'sequence_paused' | 'sequence_resumed' | 'sequence_unenrolled';
  currentNodeId?: string | null;
  nextActionAt?: string | null;
  /**
   * Why the run waits until nextActionAt (send_window, mailbox_cap, email_interval, paused). A mirror that sets
   * nextActionAt without it clears the reason (a wait step, or nothing to wait for).
   */
  waitReason?: 'send_window' | 'mailbox_cap' | 'email_interval' | 'paused' | null;
  pausedUntil?: string | null;
  error?: string | null;
  /** The API command that caused this status change (pause, resume, unenroll). */
  commandId?: string;
  /** A step row to upsert (start, wait, stop; sends and actions write their own). */
  step?: {
    nodeId: string;
    nodeType: string;
    status: 'waiting' | 'completed' | 'skipped' | 'failed';
    output?: Record<string, unknown>;
    error?: string | null;
  };
}

export const SEQUENCE_FAILURE_TYPES = {
  permanent: 'SequenceStepPermanentError',
  invalidState: 'invalid_state',
} as const;
