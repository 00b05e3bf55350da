import type { Ctx } from '../../platform/context';
import { findSyncPage } from '../../platform/shared/record-service';
import { dateWhere, likeAny, type PageRequest } from '../../platform/shared/listing';
import { Task, type TaskPriority, type TaskStatus } from './task.entity';
import { serializeTask } from './tasks.service';

export interface TaskListQuery extends PageRequest {
  status?: TaskStatus;
  priority?: TaskPriority;
  ownerId?: string;
  assignee?: string;
  project?: string;
  company?: string;
  personRef?: string;
  leadRef?: string;
  dealRef?: string;
  q?: string;
  updatedSince?: Date;
  createdAfter?: Date;
  /** dateFrom/dateTo filter the deadline (tasks due in a window). */
  dateFrom?: Date;
  dateTo?: Date;
}

export async function listTasks(ctx: Ctx, query: TaskListQuery) {
  const where: Record<string, unknown> = {};
  for (const key of ['status', 'priority', 'project', 'company', 'personRef', 'leadRef', 'dealRef'] as const) {
    if (query[key]) where[key] = query[key];
  }
  if (query.ownerId) where.owner = query.ownerId;
  if (query.assignee) where.assignees = { $contains: [query.assignee] };
  Object.assign(where, dateWhere({ updatedSince: query.updatedSince, createdAfter: query.createdAfter }));
  // Same range rules as createdAt elsewhere (a bare date as upper bound means the whole day).
  const range = dateWhere({ dateFrom: query.dateFrom, dateTo: query.dateTo }).createdAt;
  if (range) where.deadline = range;
  if (query.q) where.$or = likeAny(query.q, ['title', 'description']);
  const { items, total } = await findSyncPage(ctx, Task, where, query);
  return { items: items.map(serializeTask), total };
}
