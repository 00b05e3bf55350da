/**
 * The enrollment workflow's own bookkeeping rows (sequence_step, the enrollment's current node and
 * next action time) written with single statements on the lean path (domain/orm/lean.ts) instead
 * of find + create + flush through the ORM: an enrollment writes them several times on its way to
 * its first wait, and the ORM's query building, identity map and transactions were the larger
 * part of the worker's time per enrollment (README "Enrollment throughput"). Inside a
 * transaction each statement runs on the transaction's connection.
 */
import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../platform/ids';
import { leanColumns, leanQuery, readDates } from '../../platform/orm/lean';
import { SequenceEnrollment, type SequenceStepStatus } from './sequence.entity';
import type { MirrorInput } from './types';

/** The fields of a step row a write may set; the rest keep their value (insert: null). */
export interface StepPatch {
  status: SequenceStepStatus;
  output?: Record<string, unknown> | null;
  error?: string | null;
  handle?: string | null;
  messageId?: string | null;
  sentAt?: Date | null;
}

/** What callers read back of a step row. */
export interface StepRow {
  _id: string;
  status: SequenceStepStatus;
  output: Record<string, unknown> | null;
  handle: string | null;
}

/** The step's enrollment: its id, workspace and sequence (what a step row records). */
export interface StepOwner {
  _id: string;
  workspaceId: string;
  sequenceId: string;
}

const PATCH_COLUMNS = {
  output: 'output',
  error: 'error',
  handle: 'handle',
  messageId: 'message_id',
  sentAt: 'sent_at',
} as const;
type PatchKey = keyof typeof PATCH_COLUMNS;
const PATCH_KEYS = Object.keys(PATCH_COLUMNS) as PatchKey[];
const isOpen = (status: SequenceStepStatus): boolean => status === 'waiting' || status === 'running';
const json = (v: Record<string, unknown> | null | undefined): string | null => (v == null ? null : JSON.stringify(v));

/**
 * The update of an existing step row: its status, the given columns, updated_at and, for a finished
 * status, ended_at (the insert's values, `excluded`).
 */
function onConflictUpdate(columns: string[], finished: boolean): string {
  const set = [
    'status = excluded.status',
    ...columns.map((c) => `${c} = excluded.${c}`),
    'updated_at = excluded.updated_at',
    ...(finished ? ['ended_at = excluded.ended_at'] : []),
  ];
  return ` on conflict (enrollment_id, node_id) do update set ${set.join(', ')}`;
}

const upsertTexts = new Map<string, string>();
/**
 * insert … on conflict (enrollment_id, node_id) do update: the patched columns, updated_at and,
 * for a finished status, ended_at. Each `$n` once and in order (leanQuery's contract).
 */
function upsertText(keys: PatchKey[], finished: boolean): string {
  const cacheKey = `${keys.join(',')}|${finished}`;
  let text = upsertTexts.get(cacheKey);
  if (!text) {
    text =
      `insert into sequence_step (id, workspace_id, created_at, updated_at, enrollment_id, sequence_id, node_id,` +
      ` node_type, status, started_at, ended_at, output, error, handle, message_id, sent_at)` +
      ` values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16)` +
      onConflictUpdate(
        keys.map((k) => PATCH_COLUMNS[k]),
        finished,
      ) +
      ` returning id as "_id", status, output, handle`;
    upsertTexts.set(cacheKey, text);
  }
  return text;
}

/** Creates or updates the step row of one node (one statement); returns the row as written. */
export async function upsertStep(
  em: EntityManager,
  e: StepOwner,
  nodeId: string,
  nodeType: string,
  patch: StepPatch,
): Promise<StepRow> {
  const now = new Date();
  const keys = PATCH_KEYS.filter((k) => patch[k] !== undefined);
  const finished = !isOpen(patch.status);
  const rows = await leanQuery<StepRow>(
    em,
    upsertText(keys, finished),
    [
      newId(now),
      e.workspaceId,
      now,
      now,
      e._id,
      e.sequenceId,
      nodeId,
      nodeType,
      patch.status,
      now,
      finished ? now : null,
      json(patch.output),
      patch.error ?? null,
      patch.handle ?? null,
      patch.messageId ?? null,
      patch.sentAt ?? null,
    ],
    `seq_step_upsert_${keys.join('_')}_${finished ? 'f' : 'o'}`,
  );
  return rows[0]!;
}

/**
 * The start node's step rows of enrollments just inserted (completed at `at`), in the caller's
 * transaction: one multi-row statement for a bulk enroll.
 */
export async function recordStartSteps(
  em: EntityManager,
  common: { workspaceId: string; sequenceId: string; nodeId: string; at: Date },
  enrollmentIds: readonly string[],
): Promise<void> {
  if (!enrollmentIds.length) return;
  await em.execute(
    `insert into sequence_step (id, workspace_id, created_at, updated_at, enrollment_id, sequence_id, node_id,
     node_type, status, started_at, ended_at) select x.sid, ?, ?, ?, x.eid, ?, ?, 'start', 'completed', ?, ?
     from jsonb_to_recordset(?::jsonb) as x(sid text, eid text) on conflict (enrollment_id, node_id) do nothing`,
    [
      common.workspaceId,
      common.at,
      common.at,
      common.sequenceId,
      common.nodeId,
      common.at,
      common.at,
      JSON.stringify(enrollmentIds.map((eid) => ({ sid: newId(common.at), eid }))),
    ],
  );
}

/** One step row of an enrollment, or null. */
export async function findStep(
  em: EntityManager,
  workspaceId: string,
  enrollmentId: string,
  nodeId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<StepRow | null> {
  const rows = await leanQuery<StepRow>(
    em,
    `select id as "_id", status, output, handle from sequence_step where workspace_id = $1 and enrollment_id = $2` +
      ` and node_id = $3${opts.forUpdate ? ' for update' : ''}`,
    [workspaceId, enrollmentId, nodeId],
    opts.forUpdate ? undefined : 'seq_step_find',
  );
  return rows[0] ?? null;
}

/** The fields of an enrollment's step history that placeholders (stepHistory.*, aiOutput) read. */
export interface StepHistoryRow {
  nodeType: string;
  status: SequenceStepStatus;
  output: Record<string, unknown> | null;
  sentAt: Date | null;
  openedAt: Date | null;
  clickedAt: Date | null;
  repliedAt: Date | null;
}

let beginText: { text: string; dates: string[] } | undefined;

/**
 * A step activity begins, in one statement: the enrollment, the node's step row if one exists (a
 * retried or replayed step), and, when the enrollment runs and the step is not done yet, the
 * enrollment's current node set to it with nothing scheduled; with what the step's placeholders
 * read besides the record (the workspace's name, the step history in the order the steps started).
 */
export async function beginStep(
  em: EntityManager,
  workspaceId: string,
  enrollmentId: string,
  nodeId: string,
): Promise<{
  enrollment: SequenceEnrollment;
  step: Omit<StepRow, '_id'> | null;
  workspaceName: string;
  history: StepHistoryRow[];
} | null> {
  beginText ??= (() => {
    const { select, dates } = leanColumns(em, SequenceEnrollment as EntityName<object>, 'e');
    return {
      dates,
      text:
        `with e as (select * from sequence_enrollment where workspace_id = $1 and id = $2),` +
        ` s as (select status, output, handle from sequence_step where workspace_id = $3 and enrollment_id = $4` +
        ` and node_id = $5), u as (update sequence_enrollment set current_node_id = $6, next_action_at = null, wait_reason = null,` +
        ` updated_at = $7 where workspace_id = $8 and id = $9 and status in ('active', 'paused')` +
        ` and not exists (select 1 from s where s.status in ('completed', 'skipped')))` +
        ` select ${select}, s.status as "stepStatus", s.output as "stepOutput", s.handle as "stepHandle",` +
        ` (select name from workspace where id = $10) as "workspaceName",` +
        ` (select coalesce(json_agg(json_build_object('nodeType', node_type, 'status', status, 'output', output,` +
        ` 'sentAt', sent_at, 'openedAt', opened_at, 'clickedAt', clicked_at, 'repliedAt', replied_at)` +
        ` order by started_at asc, id asc), '[]') from sequence_step where workspace_id = $11 and enrollment_id = $12)` +
        ` as "history" from e left join s on true`,
    };
  })();
  const rows = await leanQuery<Record<string, unknown>>(
    em,
    beginText.text,
    [
      workspaceId,
      enrollmentId,
      workspaceId,
      enrollmentId,
      nodeId,
      nodeId,
      new Date(),
      workspaceId,
      enrollmentId,
      workspaceId,
      workspaceId,
      enrollmentId,
    ],
    'seq_step_begin',
  );
  const row = rows[0];
  if (!row) return null;
  const { stepStatus, stepOutput, stepHandle, workspaceName, history, ...enrollment } = row;
  const at = (v: unknown): Date | null => (typeof v === 'string' ? new Date(v) : null);
  return {
    workspaceName: typeof workspaceName === 'string' ? workspaceName : '',
    history: (history as Record<string, unknown>[]).map((h) => ({
      nodeType: h.nodeType as string,
      status: h.status as SequenceStepStatus,
      output: (h.output as Record<string, unknown> | null) ?? null,
      sentAt: at(h.sentAt),
      openedAt: at(h.openedAt),
      clickedAt: at(h.clickedAt),
      repliedAt: at(h.repliedAt),
    })),
    enrollment: readDates<SequenceEnrollment>(em, enrollment, beginText.dates),
    step: stepStatus
      ? {
          status: stepStatus as SequenceStepStatus,
          output: (stepOutput as Record<string, unknown> | null) ?? null,
          handle: (stepHandle as string | null) ?? null,
        }
      : null,
  };
}

/**
 * A mirror without a status change (a step reached, a wait scheduled or done) as one statement:
 * the enrollment's current node, next action time and pause end while it runs, and the step row
 * (written even for an enrollment that ended meanwhile, as the ORM path does). Status changes
 * carry an outbox event and go through the ORM path (sequence.activities.ts). Returns whether the
 * enrollment is still running.
 */
export async function mirrorWithoutStatus(
  em: EntityManager,
  input: MirrorInput,
  opts: { stepOnlyWhileRunning?: boolean } = {},
): Promise<boolean> {
  const now = new Date();
  const values: unknown[] = [];
  const param = (v: unknown, cast = ''): string => {
    values.push(v);
    return `$${values.length}${cast}`;
  };
  const set: string[] = [];
  const shape: string[] = [];
  if (input.currentNodeId !== undefined) {
    set.push(`current_node_id = ${param(input.currentNodeId)}`);
    shape.push('c');
  }
  if (input.nextActionAt !== undefined) {
    set.push(`next_action_at = ${param(input.nextActionAt ? new Date(input.nextActionAt) : null, '::timestamptz')}`);
    shape.push('n');
  }
  // A new next action time comes with its reason, or clears the last one (MirrorInput.waitReason).
  if (input.waitReason !== undefined || input.nextActionAt !== undefined) {
    set.push(`wait_reason = ${param(input.waitReason ?? null)}`);
    shape.push('w');
  }
  if (input.pausedUntil !== undefined) {
    set.push(`paused_until = ${param(input.pausedUntil ? new Date(input.pausedUntil) : null, '::timestamptz')}`);
    shape.push('p');
  }
  set.push(`updated_at = ${param(now)}`);
  let text =
    `with running as (update sequence_enrollment set ${set.join(', ')}` +
    ` where workspace_id = ${param(input.workspaceId)} and id = ${param(input.enrollmentId)}` +
    ` and status in ('active', 'paused') returning id, workspace_id, sequence_id)`;
  const step = input.step;
  if (step) {
    const finished = !isOpen(step.status);
    shape.push(finished ? 'sf' : 'so', opts.stepOnlyWhileRunning ? 'r' : '');
    text +=
      `, step as (insert into sequence_step (id, workspace_id, created_at, updated_at, enrollment_id, sequence_id,` +
      ` node_id, node_type, status, started_at, ended_at, output, error)` +
      ` select ${param(newId(now))}, e.workspace_id, ${param(now)}::timestamptz, ${param(now)}::timestamptz, e.id,` +
      ` e.sequence_id, ${param(step.nodeId)}, ${param(step.nodeType)}, ${param(step.status)},` +
      ` ${param(now)}::timestamptz, ${param(finished ? now : null)}::timestamptz,` +
      ` ${param(json(step.output), '::jsonb')}, ${param(step.error ?? null)}` +
      (opts.stepOnlyWhileRunning
        ? ' from running e'
        : ` from sequence_enrollment e where e.workspace_id = ${param(input.workspaceId)}` +
          ` and e.id = ${param(input.enrollmentId)}`) +
      onConflictUpdate(['output', 'error'], finished) +
      ')';
  }
  text += ` select count(*)::int as n from running`;
  // The statement's text follows from its shape (which fields are set), so the shape names it.
  const rows = await leanQuery<{ n: number }>(em, text, values, `seq_mirror_${shape.join('')}`);
  return rows[0]!.n > 0;
}
