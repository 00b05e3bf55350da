/**
 * The deterministic parts of the sequence enrollment workflow (sequence-enrollment.workflow.ts), split out of it by
 * concern: walking the snapshot's graph, the step rows a run leaves open, the retry settings of its steps and the
 * answer of its waitQuery. Pure and clock-free (instants are arguments): the workflow imports it by value.
 */
import type { EnrollmentWait, EnrollmentWorkflowInput } from './sequence-enrollment.messages';
import type { SendWaitReason, WorkflowNode } from './types';

export const DAY_MS = 86_400_000;

/** A step the run has recorded as open (waiting), or is about to. */
export interface OpenStep {
  nodeId: string;
  nodeType: string;
  output: Record<string, unknown>;
}
export const stepOf = (s: OpenStep, status: 'waiting' | 'skipped') => ({
  nodeId: s.nodeId,
  nodeType: s.nodeType,
  status,
  output: s.output,
});
/** An open step the run ends without finishing: closed as skipped, with why. */
export const skipped = (s: OpenStep, reason: string) =>
  stepOf({ ...s, output: { ...s.output, skipped: true, reason } }, 'skipped');

/** The retry policy of a step activity: the sequence's own (failureBehavior retry), else a short backoff. */
export const stepRetrySettings = (input: EnrollmentWorkflowInput, scale: number) =>
  input.failureBehavior === 'retry'
    ? {
        maximumAttempts: input.retryMaxAttempts,
        initialInterval: input.retryIntervalMinutes * 60_000 * scale,
        backoffCoefficient: 1,
      }
    : { maximumAttempts: 12, initialInterval: 1000, backoffCoefficient: 2, maximumInterval: 120_000 };

/** The snapshot's graph: where a walk begins, where a node leads, how long a wait lasts. */
export function enrollmentGraph(input: EnrollmentWorkflowInput, scale: number) {
  const byId = new Map(input.nodes.map((n) => [n.id, n]));
  const nextOf = (node: WorkflowNode, handle: string | null): WorkflowNode | null => {
    const edge = input.edges.find((e) => e.source === node.id && (handle === null ? true : e.sourceHandle === handle));
    return edge ? (byId.get(edge.target) ?? null) : null;
  };
  const waitMsOf = (wait: WorkflowNode): number => Math.round(Number(wait.data.ms ?? DAY_MS) * scale);
  /** The wait a non-branching node leads to by its only edge, started by its step activity (StepActivityInput.then). */
  const waitAfter = (from: WorkflowNode): { nodeId: string; waitMs: number } | null => {
    if (from.type === 'condition' || from.type === 'ai_condition') return null;
    const out = input.edges.filter((e) => e.source === from.id);
    const target = out.length === 1 ? byId.get(out[0]!.target) : undefined;
    return target?.type === 'wait' ? { nodeId: target.id, waitMs: waitMsOf(target) } : null;
  };
  // A retry begins at the node its failed enrollment failed at (input.resumeAt); every other run at the start.
  const first = (): WorkflowNode | null =>
    (input.resumeAt ? byId.get(input.resumeAt) : undefined) ?? input.nodes.find((n) => n.type === 'start') ?? null;
  return { first, nextOf, waitMsOf, waitAfter };
}

/** What waitQuery reads from the run's state. */
export interface WaitState {
  status: 'active' | 'paused';
  finished: 'completed' | 'exited' | null;
  exiting: boolean;
  current: string | null;
  pausedUntil: number | null;
  /** A send the step deferred: why and until when (ISO). */
  deferral: { reason: SendWaitReason; until: string } | null;
  /** A wait step or (older runs) a send held for the sequence's send window: its deadline. */
  sleeping: { kind: 'wait_step' | 'send_window'; until: number } | null;
}

/** The answer of waitQuery: what the run waits for and until when. */
export function waitAnswer(s: WaitState): EnrollmentWait {
  const iso = (ms: number): string => new Date(ms).toISOString();
  const at = { status: s.finished ?? s.status, nodeId: s.current };
  if (s.finished || s.exiting) return { ...at, waitingFor: null, waitReason: null, nextActionAt: null };
  if (s.status === 'paused')
    return {
      ...at,
      waitingFor: 'paused',
      waitReason: 'paused',
      nextActionAt: s.pausedUntil === null ? null : iso(s.pausedUntil),
    };
  if (s.deferral)
    return { ...at, waitingFor: s.deferral.reason, waitReason: s.deferral.reason, nextActionAt: s.deferral.until };
  if (s.sleeping)
    return {
      ...at,
      waitingFor: s.sleeping.kind,
      waitReason: s.sleeping.kind === 'send_window' ? 'send_window' : null,
      nextActionAt: iso(s.sleeping.until),
    };
  return { ...at, waitingFor: null, waitReason: null, nextActionAt: null };
}

const MAX_PAUSE_DAYS = 365;

/** The run's state as the command validators see it. */
export interface CommandState {
  status: 'active' | 'paused';
  finished: 'completed' | 'exited' | null;
  exiting: boolean;
}
const stateOf = (s: CommandState): string => s.finished ?? (s.exiting ? 'exiting' : s.status);

/** Why pauseUpdate is refused now (the validator's message), or null. */
export function pauseRefusal(s: CommandState, durationDays: unknown): string | null {
  if (s.finished || s.exiting || s.status !== 'active')
    return `enrollment is ${stateOf(s)}; only active enrollments can be paused`;
  const d = durationDays;
  if (d !== undefined && !(typeof d === 'number' && d > 0 && d <= MAX_PAUSE_DAYS))
    return `durationDays must be greater than 0 and at most ${MAX_PAUSE_DAYS}`;
  return null;
}

/** Why resumeUpdate is refused now, or null. */
export const resumeRefusal = (s: CommandState): string | null =>
  s.finished || s.exiting || s.status !== 'paused'
    ? `enrollment is ${stateOf(s)}; only paused enrollments can be resumed`
    : null;

/** Why unenrollUpdate is refused now, or null. */
export const unenrollRefusal = (s: CommandState): string | null =>
  s.finished || s.exiting
    ? `enrollment is ${s.finished ?? 'exiting'}; only active or paused enrollments can be unenrolled`
    : null;
