/**
 * Enrollment runs: starting the workflow of an enrollment row, steering it (pause, resume,
 * unenroll through workflow updates), and the read side (lists, one enrollment, stats).
 */
import type { EnrollmentDetailView, EnrollmentStepView, EnrollmentView, SequenceStatsView } from './sequences.views';
import type { EnrollEntityType } from './definition.schemas';
import type { Ctx } from '../../platform/context';
import { DomainError, validation } from '../../platform/errors';
import type { SequenceEngineDeps, UpdateOutcome } from './ports';
import { getSequence } from './sequences.service';
import {
  ENROLLMENT_STATUSES,
  SequenceEnrollment,
  SequenceStep,
  WAIT_REASONS,
  type EnrollmentSnapshot,
  type EnrollmentStatus,
  type WaitReason,
} from './sequence.entity';
import type { EnrollmentWorkflowInput } from './sequence-enrollment.messages';
import type { WorkflowNode } from './types';
import { sequenceEnrollmentKind, type SequenceEnrollmentMeta } from './sequence-enrollment.kind';
import { startForRow } from '../../platform/workflow-port';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { exitQueued } from './exit-queued';
import { enrollmentWorkflowId } from './workflow-ids';
import { getRecord } from '../../platform/shared/record-service';

export interface EnrollmentStartRow {
  _id: string;
  workspaceId: string;
  sequenceId: string;
  sequenceName: string;
  entityType: string;
  entityId: string;
  status: EnrollmentStatus;
  snapshot: EnrollmentSnapshot;
  workflowId: string;
  exitReason?: string | null;
  /** The start node's step and current node were written with the row (insertEnrollments). */
  startRecorded?: boolean;
}

/** An enrollment row as selected in SQL (snake case; snapshot as jsonb or its text). */
export interface EnrollmentDbRow {
  id: string;
  workspace_id: string;
  sequence_id: string;
  sequence_name: string;
  entity_type: string;
  entity_id: string;
  snapshot: EnrollmentSnapshot | string;
}

/** The start row of an `active` enrollment read in SQL (the starter, the reconciler). */
export function startRowOf(r: EnrollmentDbRow, startRecorded?: boolean): EnrollmentStartRow {
  return {
    _id: r.id,
    workspaceId: r.workspace_id,
    sequenceId: r.sequence_id,
    sequenceName: r.sequence_name,
    entityType: r.entity_type,
    entityId: r.entity_id,
    status: 'active',
    snapshot: typeof r.snapshot === 'string' ? (JSON.parse(r.snapshot) as EnrollmentSnapshot) : r.snapshot,
    workflowId: enrollmentWorkflowId(r.workspace_id, r.id),
    ...(startRecorded ? { startRecorded } : {}),
  };
}

export { enrollmentEventPayload } from './exit-queued';

export interface EnrollmentStartOptions {
  /**
   * Retrying callers (the reconciler) get a refused start rethrown and keep the row as it is;
   * enroll calls (API, auto-enrollment, the automation action) mark the row exited and get a
   * DomainError (`unavailable` when Temporal is down, else `upstream_failed`) for that entity.
   */
  retryable: boolean;
}

/**
 * What the workflow itself reads of a node: its id, type, a wait's duration and a send's
 * ignoreBusinessHours. The rest (bodies, prompts, recipients) stays in the enrollment's snapshot in
 * Postgres, where the step activity reads it: every cached run and every history stays small
 * whatever the sequence holds (a send_email body may be 500 KB). Same snapshot, same node ids.
 */
export function workflowNodeOf(n: WorkflowNode): WorkflowNode {
  const data: Record<string, unknown> = {};
  if (n.type === 'wait' && n.data.ms !== undefined) data.ms = n.data.ms;
  if ((n.type === 'send_email' || n.type === 'send_sms') && n.data.ignoreBusinessHours === true)
    data.ignoreBusinessHours = true;
  return { id: n.id, type: n.type, data };
}

/**
 * Starts the row's workflow through the generic port with the registry kind: same id and input
 * for a row every time (a repeated start is `already_started`), the kind's search attributes,
 * memo and summary, the port's start options and deadline, and startForRow's failure mapping.
 */
export async function startEnrollmentWorkflow(
  deps: SequenceEngineDeps,
  row: EnrollmentStartRow,
  opts: EnrollmentStartOptions = { retryable: true },
): Promise<'started' | 'already_started'> {
  const { snapshot } = row;
  const exec = snapshot.settings.executionSettings;
  const input: EnrollmentWorkflowInput = {
    workspaceId: row.workspaceId,
    enrollmentId: row._id,
    sequenceId: row.sequenceId,
    nodes: snapshot.nodes.map(workflowNodeOf),
    edges: snapshot.edges,
    sendSettings: snapshot.settings.sendSettings,
    failureBehavior: exec.failureBehavior,
    retryMaxAttempts: exec.retryMaxAttempts,
    retryIntervalMinutes: exec.retryIntervalMinutes,
    ...(row.startRecorded ? { startRecorded: true } : {}),
    ...(snapshot.resumeAt ? { resumeAt: snapshot.resumeAt } : {}),
    localSteps: true,
    ...(deps.waitScale && deps.waitScale !== 1 ? { waitScale: deps.waitScale } : {}),
    ...(deps.stepTimeoutMs ? { stepTimeoutMs: deps.stepTimeoutMs } : {}),
  };
  const meta: SequenceEnrollmentMeta = {
    workspaceId: row.workspaceId,
    enrollmentId: row._id,
    sequenceId: row.sequenceId,
    sequenceName: row.sequenceName,
    sequenceVersion: snapshot.version,
    entityType: row.entityType,
    entityId: row.entityId,
  };
  return startForRow(
    deps.workflows.engine,
    { kind: sequenceEnrollmentKind, workspaceId: row.workspaceId, id: row._id, input, meta },
    {
      log: deps.log,
      retryable: opts.retryable,
      what: 'the enrollment',
      markNotStarted: async (reason) => {
        await forkForWorkspace(deps.orm.em, row.workspaceId).nativeUpdate(
          SequenceEnrollment,
          { _id: row._id, workspaceId: row.workspaceId, status: 'active' },
          { status: 'exited', exitReason: 'error', error: reason, finishedAt: new Date(), nextActionAt: null },
        );
      },
    },
  );
}

export function serializeEnrollment(e: SequenceEnrollment): EnrollmentView {
  const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
  return {
    _id: e._id,
    sequenceId: e.sequenceId,
    sequenceName: e.sequenceName,
    entityType: e.entityType as EnrollEntityType,
    entityId: e.entityId,
    personId: e.personId ?? null,
    status: e.status,
    exitReason: e.exitReason ?? null,
    source: e.source,
    currentNodeId: e.currentNodeId ?? null,
    nextActionAt: iso(e.nextActionAt),
    waitReason: e.waitReason ?? null,
    pausedUntil: iso(e.pausedUntil),
    sequenceVersion: e.snapshot?.version ?? null,
    workflowId: e.workflowId,
    enrolledAt: e.enrolledAt.toISOString(),
    finishedAt: iso(e.finishedAt),
    error: e.error ?? null,
    retryOf: e.retryOf ?? null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

const serializeStep = (s: SequenceStep): EnrollmentStepView => ({
  nodeId: s.nodeId,
  nodeType: s.nodeType,
  status: s.status,
  handle: s.handle ?? null,
  startedAt: s.startedAt.toISOString(),
  endedAt: s.endedAt?.toISOString() ?? null,
  output: s.output ?? null,
  error: s.error ?? null,
  sentAt: s.sentAt?.toISOString() ?? null,
  openedAt: s.openedAt?.toISOString() ?? null,
  clickedAt: s.clickedAt?.toISOString() ?? null,
  repliedAt: s.repliedAt?.toISOString() ?? null,
  ...stepWait(s),
});

/** A waiting step's reason and time, as its row's output recorded them (a deferred send, a wait step). */
function stepWait(s: SequenceStep): Pick<EnrollmentStepView, 'waitReason' | 'nextActionAt'> {
  if (s.status !== 'waiting') return { waitReason: null, nextActionAt: null };
  const o = s.output ?? {};
  const reason = typeof o.waitReason === 'string' ? o.waitReason : null;
  const at = typeof o.nextActionAt === 'string' ? o.nextActionAt : typeof o.until === 'string' ? o.until : null;
  return {
    waitReason: (WAIT_REASONS as readonly string[]).includes(reason ?? '') ? (reason as WaitReason) : null,
    nextActionAt: at,
  };
}

export function getEnrollment(ctx: Ctx, id: string): Promise<SequenceEnrollment> {
  return getRecord(ctx, SequenceEnrollment, id, 'enrollment');
}

/** One enrollment with its step history (oldest first). */
export async function readEnrollment(ctx: Ctx, id: string): Promise<EnrollmentDetailView> {
  const e = await getEnrollment(ctx, id);
  const steps = await ctx.em.find(SequenceStep, { enrollmentId: id }, { orderBy: { startedAt: 'asc', _id: 'asc' } });
  const retries = await ctx.em.find(SequenceEnrollment, { retryOf: id }, { fields: ['_id'], orderBy: { _id: 'asc' } });
  return {
    ...serializeEnrollment(e),
    retries: retries.map((r) => r._id),
    steps: steps.map(serializeStep),
    wait: storedWait(e),
  };
}

/** What a running enrollment waits for by its stored row (enrollment-wait.ts asks the workflow first). */
export function storedWait(e: SequenceEnrollment): EnrollmentDetailView['wait'] {
  if (e.status !== 'active' && e.status !== 'paused') return null;
  const reason = e.status === 'paused' ? 'paused' : (e.waitReason ?? null);
  return {
    source: 'stored',
    waitingFor: reason ?? (e.nextActionAt ? 'wait_step' : null),
    waitReason: reason,
    nextActionAt:
      e.status === 'paused' ? (e.pausedUntil?.toISOString() ?? null) : (e.nextActionAt?.toISOString() ?? null),
    nodeId: e.currentNodeId ?? null,
  };
}

export async function listEnrollments(
  ctx: Ctx,
  sequenceId: string,
  q: { page: number; limit: number; status?: EnrollmentStatus },
): Promise<{ items: EnrollmentView[]; total: number }> {
  await getSequence(ctx, sequenceId);
  const where = { sequenceId, ...(q.status ? { status: q.status } : {}) };
  const [rows, total] = await ctx.em.findAndCount(SequenceEnrollment, where, {
    orderBy: { enrolledAt: 'desc', _id: 'desc' },
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
  return { items: rows.map(serializeEnrollment), total };
}

/** Totals per status and per step (sent/opened/clicked/replied and step outcomes). */
export async function sequenceStats(ctx: Ctx, sequenceId: string): Promise<SequenceStatsView> {
  const sequence = await getSequence(ctx, sequenceId);
  const ws = ctx.actor.workspaceId;
  const counts: { status: EnrollmentStatus; n: string }[] = await ctx.em.execute(
    'select status, count(*) as n from sequence_enrollment where workspace_id = ? and sequence_id = ? group by status order by status',
    [ws, sequenceId],
  );
  const reasons: { exit_reason: string; n: string }[] = await ctx.em.execute(
    "select exit_reason, count(*) as n from sequence_enrollment where workspace_id = ? and sequence_id = ? and status = 'exited' group by exit_reason",
    [ws, sequenceId],
  );
  const steps: Record<string, string>[] = await ctx.em.execute(
    `select node_id, node_type, count(*) filter (where status = 'completed') as completed, count(*) filter (where status = 'skipped') as skipped,
       count(*) filter (where status = 'failed') as failed, count(*) filter (where status = 'waiting') as waiting, count(sent_at) as sent, count(opened_at) as opened,
       count(clicked_at) as clicked, count(replied_at) as replied
     from sequence_step where workspace_id = ? and sequence_id = ? group by node_id, node_type`,
    [ws, sequenceId],
  );
  const byStatus = Object.fromEntries(ENROLLMENT_STATUSES.map((s) => [s, 0])) as Record<EnrollmentStatus, number>;
  for (const c of counts) byStatus[c.status] = Number(c.n);
  const stepRows = new Map(steps.map((s) => [s.node_id, s]));
  const num = (v: string | undefined) => Number(v ?? 0);
  return {
    stats: {
      totalEnrolled: Object.values(byStatus).reduce((a, b) => a + b, 0),
      ...byStatus,
      exitReasons: Object.fromEntries(reasons.map((r) => [r.exit_reason ?? 'unknown', Number(r.n)])),
      steps: sequence.nodes
        .filter((n) => n.type !== 'start')
        .map((n) => {
          const s = stepRows.get(n.id);
          return {
            nodeId: n.id,
            nodeType: n.type,
            label: typeof n.data?.label === 'string' ? n.data.label : null,
            sent: num(s?.sent),
            opened: num(s?.opened),
            clicked: num(s?.clicked),
            replied: num(s?.replied),
            completed: num(s?.completed),
            skipped: num(s?.skipped),
            failed: num(s?.failed),
            waiting: num(s?.waiting),
          };
        }),
    },
    enrollmentCounts: counts.map((c) => ({ _id: c.status, count: Number(c.n) })),
  };
}

const MAX_PAUSE_DAYS = 365;

function outcome(o: UpdateOutcome, what: string): void {
  if (o === 'ok') return;
  throw new DomainError(
    'invalid_state',
    o === 'not_running'
      ? `the enrollment's run has already ended; it cannot be ${what}`
      : `the enrollment cannot be ${what} in its current state`,
  );
}

function requireStatus(e: SequenceEnrollment, allowed: EnrollmentStatus[], action: string): void {
  if (!allowed.includes(e.status)) {
    throw new DomainError(
      'invalid_state',
      `enrollment is ${e.status}; only ${allowed.join(' or ')} enrollments can be ${action}`,
      { status: e.status },
    );
  }
}

/** This very command (same Idempotency-Key) changed the enrollment earlier, recorded while the engine was away. */
const alreadyApplied = (e: SequenceEnrollment, commandId: string, statuses: EnrollmentStatus[]): boolean =>
  e.lastCommandId === commandId && statuses.includes(e.status);

export async function pauseEnrollment(
  ctx: Ctx,
  deps: SequenceEngineDeps,
  id: string,
  durationDays: number | undefined,
  commandId: string,
): Promise<{ paused: true }> {
  if (
    durationDays !== undefined &&
    (!Number.isFinite(durationDays) || durationDays <= 0 || durationDays > MAX_PAUSE_DAYS)
  ) {
    throw validation(`durationDays: must be greater than 0 and at most ${MAX_PAUSE_DAYS}`);
  }
  const e = await getEnrollment(ctx, id);
  if (alreadyApplied(e, commandId, ['paused'])) return { paused: true };
  requireStatus(e, ['active'], 'paused');
  if (e.startQueued)
    throw new DomainError(
      'unavailable',
      "the enrollment's workflow is starting (it was enrolled moments ago); retry shortly",
      { starting: true },
      { 'Retry-After': '1' },
    );
  outcome(
    await deps.workflows.pause(e.workflowId, durationDays === undefined ? {} : { durationDays }, commandId),
    'paused',
  );
  return { paused: true };
}

export async function resumeEnrollment(
  ctx: Ctx,
  deps: SequenceEngineDeps,
  id: string,
  commandId: string,
): Promise<{ resumed: true }> {
  const e = await getEnrollment(ctx, id);
  if (alreadyApplied(e, commandId, ['active'])) return { resumed: true };
  requireStatus(e, ['paused'], 'resumed');
  outcome(await deps.workflows.resume(e.workflowId, commandId), 'resumed');
  return { resumed: true };
}

/** Ends the enrollment: status `exited` with exitReason `manual` (the spec leaves the status open). */
export async function unenrollEnrollment(
  ctx: Ctx,
  deps: SequenceEngineDeps,
  id: string,
  commandId: string,
): Promise<{ unenrolled: true }> {
  const e = await getEnrollment(ctx, id);
  if (alreadyApplied(e, commandId, ['exited'])) return { unenrolled: true };
  requireStatus(e, ['active', 'paused'], 'unenrolled');
  // Its workflow has not started: the row ends here (start-queue.ts); one that started meanwhile is told below.
  if (e.startQueued && (await exitQueued(ctx.em, [id], 'manual', 'sequence_unenrolled', commandId)).has(id))
    return { unenrolled: true };
  outcome(await deps.workflows.unenroll(e.workflowId, commandId), 'unenrolled');
  return { unenrolled: true };
}
