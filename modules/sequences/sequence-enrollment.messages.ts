/**
 * The sequence enrollment workflow's contract, declared once: its input and its updates, signals and
 * query (descriptors the workflow registers and the port sends: sequence-enrollment.workflow.ts,
 * ports.ts). Workflow-safe: imports only @temporalio/workflow and types. The names are on the wire
 * (histories, runs in flight): never rename one.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { SendWindowSettings } from './send-window.pure';
import type { ExitReason, SendWaitReason, WorkflowEdge, WorkflowNode } from './types';

/** One serializable input: ids plus the snapshot the enrollment started with. */
export interface EnrollmentWorkflowInput {
  workspaceId: string;
  enrollmentId: string;
  sequenceId: string;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  sendSettings: SendWindowSettings;
  failureBehavior: 'stop' | 'continue' | 'retry';
  retryMaxAttempts: number;
  retryIntervalMinutes: number;
  /** Tests only (CRM_TEST with SEQUENCE_WAIT_SCALE): multiplies waits and pause durations; absent = exact. */
  waitScale?: number;
  /**
   * Tests only (CRM_TEST with SEQUENCE_STEP_TIMEOUT_MS): start-to-close timeout of one step attempt; absent = 2
   * minutes.
   */
  stepTimeoutMs?: number;
  /**
   * The start node's step row and the enrollment's current node were written with the enrollment row, so the run
   * does not mirror them (absent for runs started before that, and for runs the reconciler restarts).
   */
  startRecorded?: boolean;
  /**
   * Each step runs as a local activity (absent for runs started before that: their steps are remote activities).
   * The step's effect is the same idempotent activity; it runs inside the workflow task that reached it, so a step
   * costs one workflow task instead of two plus an activity task, and a run waiting for its step stays in the
   * worker's cache (the worker takes no new workflow tasks while the cache is full of such runs) instead of being
   * evicted and replayed when a bulk enrollment outruns the steps.
   */
  localSteps?: boolean;
  /** A retry of a failed enrollment (retry.ts): the failed node the walk begins at instead of the start node. */
  resumeAt?: string;
}

/** Every API command carries its id (same Idempotency-Key, same id): applied once, update or signal. */
export interface CommandArgs {
  commandId?: string;
}

export interface PauseArgs extends CommandArgs {
  durationDays?: number;
}

/** The durable twin of pause/resume/unenroll (commandSignal): the command's arg, its id and its update's name. */
export interface CommandSignalArgs extends PauseArgs {
  /** The name of the update it stands for (pauseUpdate, resumeUpdate or unenrollUpdate). */
  name: string;
  commandId: string;
}

/** What the workflow reports about itself (stateQuery). */
export interface EnrollmentState {
  status: 'active' | 'paused' | 'completed' | 'exited';
  currentNodeId: string | null;
  pausedUntil: string | null;
  exitReason: ExitReason | null;
}

/**
 * What a run waits for right now and until when (waitQuery), read from its own state: a deferred send (its reason:
 * the recipient's send window, the mailbox's cap or send interval), a pause, a wait step; nothing while it works or
 * once it ended.
 */
export interface EnrollmentWait {
  status: 'active' | 'paused' | 'completed' | 'exited';
  /** The node the run is at. */
  nodeId: string | null;
  waitingFor: SendWaitReason | 'paused' | 'wait_step' | null;
  /** The enrollment's waitReason (a wait step has none). */
  waitReason: SendWaitReason | 'paused' | null;
  /** Until when (ISO); null while paused without an end, working, or ended. */
  nextActionAt: string | null;
}

/** Updates with validators: the API caller gets an answer (409 when the enrollment's state refuses it). */
export const pauseUpdate = defineUpdate<{ paused: true }, [PauseArgs]>('pause');
export const resumeUpdate = defineUpdate<{ resumed: true }, [CommandArgs?]>('resume');
export const unenrollUpdate = defineUpdate<{ unenrolled: true }, [CommandArgs?]>('unenroll');
/** Sent when the update is not confirmed in time (no worker): durable at once, applied once per command id. */
export const commandSignal = defineSignal<[CommandSignalArgs]>('command');
/** An exit condition met (reply, meeting booked, unsubscribe, restart, …). */
export const exitSignal = defineSignal<[{ reason: ExitReason }]>('exit');
export const stateQuery = defineQuery<EnrollmentState>('state');
/** What the run waits for and until when (GET /sequences/enrollments/:id asks it with a short deadline). */
export const waitQuery = defineQuery<EnrollmentWait>('wait');
