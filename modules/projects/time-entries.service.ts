import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { createdEvent } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Task } from '../tasks';
import { TimeEntry } from './project.entity';
import { assertTimeEntryWords, entryHours } from './project-rules';
import { getProject } from './projects.service';
import type { TimeEntryInput, TimeEntryView } from './projects.schemas';

export const TIME_ENTRY_FIELDS = [
  '_id',
  'projectId',
  'taskId',
  'hours',
  'description',
  'date',
  'billable',
  'userId',
  'clipCardId',
  'createdAt',
  'updatedAt',
] as const;
export const serializeTimeEntry = (e: TimeEntry): TimeEntryView => plainOf(e, TIME_ENTRY_FIELDS);

const USABLE_CARD = `select id from clip_card where workspace_id = ? and project_id = ? and cancelled_at is null
  and (expires_at is null or expires_at > now()) and (allow_overdraft or used_hours < total_hours)
  order by created_at, id limit 1`;

/**
 * The oldest usable clip card of the project, locked so concurrent entries add up: not cancelled,
 * not expired, and with hours left unless it allows overdraft. A card used up by a concurrent entry
 * drops out of the locked read (Postgres rechecks the condition), so the next one is tried.
 */
async function lockActiveCard(ctx: Ctx, projectId: string): Promise<string | null> {
  const args = [ctx.actor.workspaceId, projectId];
  for (let attempt = 0; attempt < 5; attempt++) {
    const locked = await ctx.em.execute<{ id: string }[]>(`${USABLE_CARD} for update`, args);
    if (locked[0]) return locked[0].id;
    const candidate = await ctx.em.execute<{ id: string }[]>(USABLE_CARD, args);
    if (!candidate[0]) return null;
  }
  return null;
}

/** Logs time on a project; every entry (billable or not) consumes hours of the active clip card. */
export async function createTimeEntry(ctx: Ctx, projectId: string, input: TimeEntryInput): Promise<TimeEntryView> {
  const project = await getProject(ctx, projectId);
  const hours = entryHours(input.hours, input.minutes);
  if (input.taskId && !(await ctx.em.count(Task, { _id: input.taskId, project: projectId }))) {
    throw validation(`taskId: no task with id ${input.taskId} in this project`, [
      { path: 'taskId', error: 'no such task in this project' },
    ]);
  }
  assertTimeEntryWords(project.minTimeEntryWords ?? null, input.description);
  return inTransaction(ctx, async () => {
    const clipCardId = await lockActiveCard(ctx, projectId);
    if (clipCardId) {
      await ctx.em.execute(
        `update clip_card set used_hours = used_hours + ?, updated_at = now() where id = ? and workspace_id = ?`,
        [hours, clipCardId, ctx.actor.workspaceId],
      );
    }
    const entry = createRecord(ctx, TimeEntry, {
      projectId,
      taskId: input.taskId ?? null,
      hours,
      description: input.description ?? null,
      date: input.date ?? new Date(),
      billable: input.billable ?? true,
      userId: ctx.actor.userId,
      clipCardId,
    } as TimeEntry);
    emit(ctx, { ...createdEvent('time_entry', { timeEntry: serializeTimeEntry(entry) }), entityId: entry._id });
    return serializeTimeEntry(entry);
  });
}

export async function listTimeEntries(ctx: Ctx, projectId: string, query: PageRequest & { taskId?: string }) {
  await getProject(ctx, projectId);
  const where: Record<string, unknown> = { projectId };
  if (query.taskId) where.taskId = query.taskId;
  const { items, total } = await findPage(ctx.em, TimeEntry, where, query, { date: 'desc' });
  return { items: items.map(serializeTimeEntry), total };
}
