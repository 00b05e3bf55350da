import type { Ctx } from '../../platform/context';
import { User } from '../workspaces';
import { createdRange, num, period, round2, rows, workspaceTimeZone } from './report-sql';
import type { ReportRangeQuery } from './reports.schemas';
import type { UserReportView, UsersReportView } from './reports.views';
import { getRecord } from '../../platform/shared/record-service';

// Per-user figures (deals, leads, activities, tasks): the users report and one user's report.

interface UserFigures {
  deals: { open: number; won: number; lost: number; wonValue: number; openValue: number };
  leads: number;
  activities: number;
  tasks: { open: number; done: number };
}

async function figuresByUser(ctx: Ctx, q: ReportRangeQuery, onlyUser?: string): Promise<Map<string, UserFigures>> {
  const ws = ctx.actor.workspaceId;
  const tz = await workspaceTimeZone(ctx);
  const build = (alias: string, ownerColumn: string) => {
    const params: unknown[] = [ws];
    let filter = createdRange(alias, q, tz, params);
    if (onlyUser) {
      filter += ` and ${alias}.${ownerColumn} = ?`;
      params.push(onlyUser);
    }
    return { filter, params };
  };
  const d = build('d', 'owner_id');
  const l = build('l', 'owner_id');
  const a = build('a', 'owner_id');
  const t = build('t', 'owner');
  const [deals, leads, acts, tasks] = await Promise.all([
    rows(
      ctx,
      `select d.owner_id as u, d.status, count(*)::int as n, coalesce(sum(d.value), 0)::float8 as v from deal d where d.workspace_id = ?${d.filter} and d.owner_id is not null group by 1, 2`,
      d.params,
    ),
    rows(
      ctx,
      `select l.owner_id as u, count(*)::int as n from lead l where l.workspace_id = ?${l.filter} and l.owner_id is not null group by 1`,
      l.params,
    ),
    rows(
      ctx,
      `select a.owner_id as u, count(*)::int as n from activity a where a.workspace_id = ?${a.filter} and not a.system and a.owner_id is not null group by 1`,
      a.params,
    ),
    rows(
      ctx,
      `select t.owner as u, (t.status = 'done') as done, count(*)::int as n from task t where t.workspace_id = ?${t.filter} group by 1, 2`,
      t.params,
    ),
  ]);
  const out = new Map<string, UserFigures>();
  const get = (u: unknown): UserFigures => {
    const key = String(u);
    let f = out.get(key);
    if (!f) {
      f = emptyFigures();
      out.set(key, f);
    }
    return f;
  };
  for (const r of deals) {
    const f = get(r.u);
    const status = r.status as 'open' | 'won' | 'lost';
    if (status in f.deals) f.deals[status] += num(r.n);
    if (status === 'won') f.deals.wonValue = round2(f.deals.wonValue + num(r.v));
    if (status === 'open') f.deals.openValue = round2(f.deals.openValue + num(r.v));
  }
  for (const r of leads) get(r.u).leads += num(r.n);
  for (const r of acts) get(r.u).activities += num(r.n);
  for (const r of tasks) {
    const f = get(r.u);
    if (r.done) f.tasks.done += num(r.n);
    else f.tasks.open += num(r.n);
  }
  return out;
}

const emptyFigures = (): UserFigures => ({
  deals: { open: 0, won: 0, lost: 0, wonValue: 0, openValue: 0 },
  leads: 0,
  activities: 0,
  tasks: { open: 0, done: 0 },
});
const userHead = (u: User) => ({
  userId: u._id,
  name: [u.firstName, u.lastName].filter(Boolean).join(' '),
  email: u.email,
  role: u.role,
});

/** One row per user of the workspace (sorted by name) with their deals, leads, activities and tasks. */
export async function usersReport(ctx: Ctx, q: ReportRangeQuery): Promise<UsersReportView> {
  const users = await ctx.em.find(User, {}, { orderBy: { firstName: 'asc', lastName: 'asc', _id: 'asc' } });
  const figures = await figuresByUser(ctx, { ...q, ownerId: undefined });
  return { ...period(q), users: users.map((u) => ({ ...userHead(u), ...(figures.get(u._id) ?? emptyFigures()) })) };
}

/** One user's figures plus their activities by type; another workspace's user is 404. */
export async function userReport(ctx: Ctx, userId: string, q: ReportRangeQuery): Promise<UserReportView> {
  const user = await getRecord(ctx, User, userId, 'user');
  const figures = (await figuresByUser(ctx, { ...q, ownerId: undefined }, userId)).get(userId) ?? emptyFigures();
  const tz = await workspaceTimeZone(ctx);
  const params: unknown[] = [ctx.actor.workspaceId, userId];
  const filter = createdRange('a', q, tz, params);
  const byType = await rows(
    ctx,
    `select a.type, count(*)::int as n, max(a.date) as last from activity a
      where a.workspace_id = ? and a.owner_id = ? and not a.system${filter} group by a.type order by count(*) desc, a.type`,
    params,
  );
  const last = byType
    .map((r) => r.last as Date | string | null)
    .filter(Boolean)
    .map((d) => new Date(d as string))
    .sort((x, y) => y.getTime() - x.getTime())[0];
  return {
    ...period(q),
    ...userHead(user),
    ...figures,
    activitiesByType: byType.map((r) => ({ type: r.type as string, count: num(r.n) })),
    lastActivityAt: last ? last.toISOString() : null,
  };
}
