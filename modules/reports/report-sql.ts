import type { Ctx } from '../../platform/context';
import { Workspace } from '../workspaces';
import type { Bound } from './reports.schemas';

// Read-only SQL aggregates. Raw SQL bypasses the tenant filter, so every statement names the
// workspace explicitly (first parameter) — never rely on the caller for it.

export type Row = Record<string, unknown>;
export const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
export const round2 = (v: number): number => Math.round(v * 100) / 100;

export async function rows(ctx: Ctx, sql: string, params: unknown[]): Promise<Row[]> {
  return ctx.em.execute(sql, params, 'all');
}

export async function workspaceTimeZone(ctx: Ctx): Promise<string> {
  const ws = await ctx.em.findOne(Workspace, { _id: ctx.actor.workspaceId }, { fields: ['timezone'] });
  return ws?.timezone ?? 'Europe/Copenhagen';
}

/** `created_at` bounds as SQL fragments; a bare upper-bound day includes that whole local day. */
export function createdRange(
  alias: string,
  q: { dateFrom?: Bound; dateTo?: Bound },
  tz: string,
  params: unknown[],
): string {
  let sql = '';
  if (q.dateFrom) {
    if ('day' in q.dateFrom) {
      sql += ` and ${alias}.created_at >= (?::date)::timestamp at time zone ?`;
      params.push(q.dateFrom.day, tz);
    } else {
      sql += ` and ${alias}.created_at >= ?`;
      params.push(q.dateFrom.at);
    }
  }
  if (q.dateTo) {
    if ('day' in q.dateTo) {
      sql += ` and ${alias}.created_at < ((?::date + 1)::timestamp at time zone ?)`;
      params.push(q.dateTo.day, tz);
    } else {
      sql += ` and ${alias}.created_at <= ?`;
      params.push(q.dateTo.at);
    }
  }
  return sql;
}

export const period = (q: {
  dateFrom?: Bound;
  dateTo?: Bound;
}): { dateFrom: string | null; dateTo: string | null } => ({
  dateFrom: q.dateFrom ? ('day' in q.dateFrom ? q.dateFrom.day : q.dateFrom.at.toISOString()) : null,
  dateTo: q.dateTo ? ('day' in q.dateTo ? q.dateTo.day : q.dateTo.at.toISOString()) : null,
});
