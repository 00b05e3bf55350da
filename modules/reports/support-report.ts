import type { Ctx } from '../../platform/context';
import type { ReportRangeQuery } from './reports.schemas';
import type { SupportReportView } from './reports.views';
import { createdRange, period, rows, workspaceTimeZone } from './report-sql';

// Read-only SQL aggregates over support tickets; every statement names the workspace (raw SQL bypasses the tenant
// filter).

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));
const minutes = (v: unknown): number | null =>
  v === null || v === undefined ? null : Math.round(Number(v) * 100) / 100;
const OPEN = `status in ('open', 'pending', 'on_hold')`;
const CLOSED = `status in ('resolved', 'closed')`;

/**
 * Tickets (created in the period; `ownerId` = assignee): open (open, pending, on hold) and closed
 * (resolved, closed) counts by status, priority and category; average first response (first
 * public agent reply) and resolution time (resolvedAt) in minutes from creation.
 */
export async function supportReport(ctx: Ctx, q: ReportRangeQuery): Promise<SupportReportView> {
  const tz = await workspaceTimeZone(ctx);
  const params: unknown[] = [ctx.actor.workspaceId];
  let filter = createdRange('t', q, tz, params);
  if (q.ownerId) {
    filter += ' and t.assignee = ?';
    params.push(q.ownerId);
  }
  const from = `from support_ticket t where t.workspace_id = ?${filter}`;
  const [summary] = await rows(
    ctx,
    `select count(*)::int as total, count(*) filter (where ${OPEN})::int as open, count(*) filter (where ${CLOSED})::int as closed,
            count(first_response_at)::int as responded, avg(extract(epoch from (first_response_at - created_at)) / 60)::float8 as first_response,
            count(resolved_at)::int as resolved, avg(extract(epoch from (resolved_at - created_at)) / 60)::float8 as resolution
       ${from}`,
    params,
  );
  const grouped = async (column: 'status' | 'priority' | 'category') =>
    (
      await rows(
        ctx,
        `select t.${column} as key, count(*)::int as count, count(*) filter (where ${OPEN})::int as open, count(*) filter (where ${CLOSED})::int as closed
         ${from} group by t.${column} order by count(*) desc, t.${column}`,
        params,
      )
    ).map((r) => ({ key: r.key as string, count: num(r.count), open: num(r.open), closed: num(r.closed) }));
  const [byStatus, byPriority, byCategory] = [
    await grouped('status'),
    await grouped('priority'),
    await grouped('category'),
  ];
  return {
    ...period(q),
    timezone: tz,
    total: num(summary?.total),
    open: num(summary?.open),
    closed: num(summary?.closed),
    byStatus: byStatus.map(({ key, count }) => ({ status: key, count })),
    byPriority: byPriority.map(({ key, ...rest }) => ({ priority: key, ...rest })),
    byCategory: byCategory.map(({ key, ...rest }) => ({ category: key, ...rest })),
    averageFirstResponseMinutes: minutes(summary?.first_response),
    averageResolutionMinutes: minutes(summary?.resolution),
    responded: num(summary?.responded),
    resolved: num(summary?.resolved),
  };
}
