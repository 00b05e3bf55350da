import type { EntityManager } from '@mikro-orm/postgresql';
import type { EntityName, FilterQuery } from '@mikro-orm/core';

export interface PageRequest {
  page: number;
  limit: number;
}
export interface DateFilterInput {
  updatedSince?: Date;
  createdAfter?: Date;
  dateFrom?: Date;
  dateTo?: Date;
}

/** `%`/`_` in user text match literally. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `q` as a case-insensitive substring of any of `columns` (the $or of a list's text search; a column may be raw()). */
export function likeAny(q: string, columns: readonly string[]): Record<string, unknown>[] {
  const like = likePattern(q);
  return columns.map((column) => ({ [column]: { $ilike: like } }));
}

/** updatedSince → updatedAt >=; createdAfter → createdAt >; dateFrom/dateTo → createdAt range (inclusive). */
export function dateWhere(filter: DateFilterInput): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  const created: Record<string, Date> = {};
  if (filter.dateFrom) created.$gte = filter.dateFrom;
  if (filter.createdAfter) created.$gt = filter.createdAfter;
  if (filter.dateTo) created.$lte = endOfDayIfDate(filter.dateTo);
  if (Object.keys(created).length) where.createdAt = created;
  if (filter.updatedSince) where.updatedAt = { $gte: filter.updatedSince };
  return where;
}

// A bare date as upper bound means "through that day", not "until its first millisecond".
function endOfDayIfDate(date: Date): Date {
  const isMidnight =
    date.getUTCHours() === 0 &&
    date.getUTCMinutes() === 0 &&
    date.getUTCSeconds() === 0 &&
    date.getUTCMilliseconds() === 0;
  return isMidnight ? new Date(date.getTime() + 86_399_999) : date;
}

export async function findPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  page: PageRequest,
  orderBy: Record<string, 'asc' | 'desc'>,
): Promise<{ items: T[]; total: number }> {
  const [items, total] = await em.findAndCount(entity, where, {
    limit: page.limit,
    offset: (page.page - 1) * page.limit,
    orderBy: { ...orderBy, _id: Object.values(orderBy)[0] ?? 'desc' } as never,
  });
  return { items, total };
}

/** Plain JSON view of an entity: dates as ISO strings, only the listed keys. */
export function toPlain<T extends object>(entity: T, keys: readonly (keyof T & string)[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = entity[key];
    out[key] = value instanceof Date ? value.toISOString() : (value ?? null);
  }
  return out;
}
