/**
 * Sequence definitions: create, read, list, update, toggle, duplicate, delete. Settings are one
 * JSON column with the spec's defaults filled in on read; every change bumps `version` only when
 * the graph or settings change (running enrollments keep their own snapshot anyway).
 */
import type { SequenceView } from './sequences.views';
import { LockMode, type EntityName, type EntityProperty } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound } from '../../platform/errors';
import { createRecord } from '../../platform/shared/records';
import { definitionCopy } from '../../platform/shared/definition-copy';
import { inTransaction } from '../../platform/shared/tx';
import {
  DEFAULT_SETTINGS,
  DEFAULT_START_NODE,
  activationIssues,
  mergeSettings,
  validateSequenceGraph,
  type SequenceBody,
  type SequenceEdge,
  type SequenceNode,
  type SequenceSettings,
  type SequenceTrigger,
} from './definition.schemas';
import { ENROLLMENT_STATUSES, Sequence, SequenceEnrollment, type EnrollmentStatus } from './sequence.entity';
import type { ValidationIssue } from '../../platform/shared/zod-kit';
import { EmailTemplate } from '../email';
import { isId } from '../../platform/ids';
import { boundWorkspaceId, leanColumns, leanQuery, readRow } from '../../platform/orm/lean';
import { SmsTemplate } from '../messaging';
import { sequenceRefIssues } from './graph-refs.service';

/** Stored settings may predate a key: defaults fill what is missing. */
export function settingsOf(s: Sequence): SequenceSettings {
  return mergeSettings(DEFAULT_SETTINGS, (s.settings ?? {}) as never).settings;
}

export interface SequenceCounts {
  totalEnrolled: number;
  active: number;
  paused: number;
  completed: number;
  exited: number;
  switched: number;
}
const EMPTY_COUNTS: SequenceCounts = { totalEnrolled: 0, active: 0, paused: 0, completed: 0, exited: 0, switched: 0 };

export function serializeSequence(s: Sequence, counts: SequenceCounts = EMPTY_COUNTS): SequenceView {
  return {
    _id: s._id,
    name: s.name,
    description: s.description ?? null,
    isActive: s.isActive,
    nodes: s.nodes,
    edges: s.edges,
    ...settingsOf(s),
    version: s.version,
    stats: counts,
    createdBy: s.createdBy ?? null,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
  };
}

/** Enrollment counts per status for the given sequences (one grouped query). */
export async function countsFor(ctx: Ctx, sequenceIds: string[]): Promise<Map<string, SequenceCounts>> {
  const out = new Map<string, SequenceCounts>();
  if (!sequenceIds.length) return out;
  const rows: { sequence_id: string; status: EnrollmentStatus; n: string }[] = await ctx.em.execute(
    `select sequence_id, status, count(*) as n from sequence_enrollment where workspace_id = ? and sequence_id in (${sequenceIds.map(() => '?').join(',')}) group by sequence_id, status`,
    [ctx.actor.workspaceId, ...sequenceIds],
  );
  for (const r of rows) {
    const c = out.get(r.sequence_id) ?? { ...EMPTY_COUNTS };
    const n = Number(r.n);
    c[r.status] = n;
    c.totalEnrolled += n;
    out.set(r.sequence_id, c);
  }
  return out;
}

export async function getSequence(ctx: Ctx, id: string, lock = false): Promise<Sequence> {
  const s = await ctx.em.findOne(Sequence, { _id: id }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!s) throw notFound('sequence');
  return s;
}

let readStatement: { text: string; dates: string[]; converted: EntityProperty[] } | undefined;

/**
 * GET :id: the row and its enrollment counts in one prepared statement without the ORM
 * (domain/orm/lean.ts); the workspace bound to the EM is in both WHERE clauses (fails closed).
 */
export async function readSequence(ctx: Ctx, id: string): Promise<SequenceView> {
  const workspaceId = boundWorkspaceId(ctx);
  if (!readStatement) {
    const { select, dates, converted } = leanColumns(ctx, Sequence as EntityName<object>, 't');
    const perStatus = ENROLLMENT_STATUSES.map(
      (status) => `count(*) filter (where e.status = '${status}')::int as "lean_${status}"`,
    ).join(', ');
    readStatement = {
      text: `select ${select}, c.* from sequence t left join lateral (select count(*)::int as lean_total, ${perStatus}
        from sequence_enrollment e where e.workspace_id = $2 and e.sequence_id = t.id) c on true
        where t.id = $1 and t.workspace_id = $2`,
      dates,
      converted,
    };
  }
  const [row] = await leanQuery<Record<string, unknown>>(ctx, readStatement.text, [id, workspaceId], 'lean_sequence');
  if (!row) throw notFound('sequence');
  const counts = { ...EMPTY_COUNTS, totalEnrolled: row.lean_total as number };
  for (const status of ENROLLMENT_STATUSES) counts[status] = row[`lean_${status}`] as number;
  // serializeSequence picks its fields by name: the lean_* columns go no further.
  return serializeSequence(readRow<Sequence>(ctx, row, readStatement), counts);
}

export async function listSequences(
  ctx: Ctx,
  q: { page: number; limit: number; isActive?: boolean },
): Promise<{ items: SequenceView[]; total: number }> {
  const where = q.isActive === undefined ? {} : { isActive: q.isActive };
  const [rows, total] = await ctx.em.findAndCount(Sequence, where, {
    orderBy: { createdAt: 'desc', _id: 'desc' },
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  });
  const counts = await countsFor(
    ctx,
    rows.map((r) => r._id),
  );
  return { items: rows.map((r) => serializeSequence(r, counts.get(r._id))), total };
}

function invalid(issues: ValidationIssue[]): never {
  const first = issues[0]!;
  throw new DomainError(
    'validation',
    `${first.path}: ${first.error}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`,
    issues,
  );
}

function checked(nodes: SequenceNode[], edges: SequenceEdge[], settingsIssues: ValidationIssue[]): void {
  const issues = [...validateSequenceGraph(nodes, edges), ...settingsIssues];
  if (issues.length) invalid(issues);
}

/** The records a sequence names exist in this workspace (400 naming the node and the field). */
async function checkedRefs(ctx: Ctx, nodes: SequenceNode[], triggers: SequenceTrigger[] = []): Promise<void> {
  const issues = await sequenceRefIssues(ctx, nodes, triggers);
  if (issues.length) invalid(issues);
}

export async function createSequence(ctx: Ctx, input: SequenceBody): Promise<SequenceView> {
  const nodes = input.nodes?.length ? input.nodes : [DEFAULT_START_NODE];
  const edges = input.edges ?? [];
  const { settings, issues } = mergeSettings(DEFAULT_SETTINGS, input);
  checked(nodes, edges, issues);
  await checkedRefs(ctx, nodes, settings.triggers);
  const s = createRecord(ctx, Sequence, {
    name: input.name!,
    description: input.description ?? null,
    isActive: false,
    nodes,
    edges,
    settings,
    version: 1,
    createdBy: ctx.actor.userId,
  });
  await ctx.em.flush();
  return serializeSequence(s);
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Partial update; the merged definition is validated, and an active sequence must stay activatable. */
export async function updateSequence(ctx: Ctx, id: string, input: SequenceBody): Promise<SequenceView> {
  return inTransaction(ctx, async () => {
    const s = await getSequence(ctx, id, true);
    const nodes = input.nodes ?? s.nodes;
    const edges = input.edges ?? s.edges;
    const { settings, issues } = mergeSettings(settingsOf(s), input);
    checked(nodes, edges, issues);
    if (input.nodes || input.triggers) await checkedRefs(ctx, nodes, settings.triggers);
    if (s.isActive) {
      const more = activationIssues(nodes);
      if (more.length) invalid(more);
    }
    const changed = !same(nodes, s.nodes) || !same(edges, s.edges) || !same(settings, settingsOf(s));
    if (input.name !== undefined) s.name = input.name;
    if (input.description !== undefined) s.description = input.description;
    if (changed) Object.assign(s, { nodes, edges, settings, version: s.version + 1 });
    s.updatedAt = new Date();
    return serializeSequence(s, (await countsFor(ctx, [id])).get(id));
  });
}

/** Flips isActive; turning on needs a valid graph with a start node and at least one action node. */
export async function toggleSequence(ctx: Ctx, id: string): Promise<{ _id: string; isActive: boolean }> {
  return inTransaction(ctx, async () => {
    const s = await getSequence(ctx, id, true);
    if (!s.isActive) {
      const issues = [
        ...validateSequenceGraph(s.nodes, s.edges),
        ...activationIssues(s.nodes),
        ...(await sequenceRefIssues(ctx, s.nodes, settingsOf(s).triggers)),
      ];
      if (issues.length) invalid(issues);
    }
    s.isActive = !s.isActive;
    s.updatedAt = new Date();
    return { _id: s._id, isActive: s.isActive };
  });
}

/** An inactive copy with the same graph and node ids, at version 1. */
export async function duplicateSequence(ctx: Ctx, id: string): Promise<SequenceView> {
  const source = await getSequence(ctx, id);
  const copy = createRecord(ctx, Sequence, {
    ...definitionCopy(ctx, source),
    settings: settingsOf(source),
    version: 1,
  });
  await ctx.em.flush();
  return serializeSequence(copy);
}

/** Refused (409) while enrollments are active or paused; otherwise removes it with its finished enrollments. */
export async function deleteSequence(ctx: Ctx, id: string): Promise<void> {
  const ws = ctx.actor.workspaceId;
  await inTransaction(ctx, async () => {
    const s = await getSequence(ctx, id, true);
    const running = await ctx.em.count(SequenceEnrollment, { sequenceId: id, status: { $in: ['active', 'paused'] } });
    if (running > 0) {
      throw new DomainError(
        'conflict',
        `sequence has ${running} active or paused enrollment${running === 1 ? '' : 's'}; unenroll ${running === 1 ? 'it' : 'them'} (POST /api/v1/sequences/enrollments/:enrollmentId/unenroll) first`,
      );
    }
    await ctx.em.execute('delete from sequence_step where workspace_id = ? and sequence_id = ?', [ws, id]);
    await ctx.em.nativeDelete(SequenceEnrollment, { workspaceId: ws, sequenceId: id });
    ctx.em.remove(s);
  });
}
