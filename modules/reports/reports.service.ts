import type { Ctx } from '../../platform/context';
import { DomainError, notFound } from '../../platform/errors';
import { createdRange, num, period, round2, rows, workspaceTimeZone, type Row } from './report-sql';
import { daysBetween, localDay, MAX_HISTORY_DAYS } from './history-days';
import type { HistoryReportQuery, HistoryStat, PipelineReportQuery, ReportRangeQuery } from './reports.schemas';
import type {
  HistoryReportView,
  LeadsReportView,
  OffersReportView,
  OrganizationReportView,
  PipelineReportView,
} from './reports.views';
import type { StageType } from '../deals';
import type { OfferStatus } from '../offers';

// Read-only SQL aggregates. Raw SQL bypasses the tenant filter, so every statement names the
// workspace explicitly (first parameter) — never rely on the caller for it.

export { userReport, usersReport } from './users-report';

/**
 * Pipeline: one entry per stage of every flow (or of `flowId`), with deal count, value and
 * weighted value (value × probability: the deal's own, else the stage's, else 100 for won and
 * 0 for lost stages), plus totals by deal status and the win rate (won / (won + lost)).
 */
export async function pipelineReport(ctx: Ctx, q: PipelineReportQuery): Promise<PipelineReportView> {
  const ws = ctx.actor.workspaceId;
  const tz = await workspaceTimeZone(ctx);
  const dealParams: unknown[] = [];
  let dealFilter = createdRange('d', q, tz, dealParams);
  if (q.ownerId) {
    dealFilter += ' and d.owner_id = ?';
    dealParams.push(q.ownerId);
  }
  // The stages (a handful of rows) and one pass over the deals, grouped by stage, flow and status:
  // byStage sums a stage's groups, the totals sum the groups of the flow (or all). The weighted
  // value splits into the deals' own probabilities (summed per row) and the value of deals without
  // one, weighted afterwards by their stage's default — so the deals are read once, not twice.
  const stageParams: unknown[] = [ws];
  let flowFilter = '';
  if (q.flowId) {
    flowFilter = ' and f.id = ?';
    stageParams.push(q.flowId);
  }
  const stageRows = await rows(
    ctx,
    `select s.id as stage_id, s.title as stage_name, s.type, s."order", s.probability, f.id as flow_id, f.title as flow_title
       from flow_stage s
       join flow f on f.id = s.flow_id and f.workspace_id = s.workspace_id
      where s.workspace_id = ?${flowFilter}
      order by f.created_at, f.id, s."order", s.id`,
    stageParams,
  );
  if (q.flowId && stageRows.length === 0) throw notFound('flow');
  const groups = await rows(
    ctx,
    `select d.stage_id, d.flow_id, d.status, count(*)::int as count, coalesce(sum(d.value), 0)::float8 as value,
            coalesce(sum(d.value * d.probability), 0)::float8 as value_times_own,
            coalesce(sum(d.value) filter (where d.probability is null), 0)::float8 as value_unweighted
       from deal d where d.workspace_id = ?${dealFilter}
      group by d.stage_id, d.flow_id, d.status`,
    [ws, ...dealParams],
  );
  const groupsByStage = new Map<unknown, Row[]>();
  for (const g of groups) {
    const list = groupsByStage.get(g.stage_id);
    if (list) list.push(g);
    else groupsByStage.set(g.stage_id, [g]);
  }
  const byStage = stageRows.map((s) => {
    const stageDefault = s.probability !== null ? num(s.probability) : s.type === 'won' ? 100 : 0;
    let count = 0;
    let value = 0;
    let weighted = 0;
    for (const g of groupsByStage.get(s.stage_id) ?? []) {
      count += num(g.count);
      value += num(g.value);
      weighted += (num(g.value_times_own) + num(g.value_unweighted) * stageDefault) / 100;
    }
    return { ...s, count, value, weighted } as Row;
  });
  const status = (st: string) => {
    let count = 0;
    let value = 0;
    for (const g of groups) {
      if (g.status !== st || (q.flowId && g.flow_id !== q.flowId)) continue;
      count += num(g.count);
      value += num(g.value);
    }
    return { count, value: round2(value) };
  };
  const open = status('open');
  const won = status('won');
  const lost = status('lost');
  const stages = byStage.map((r) => ({
    stageId: r.stage_id as string,
    stageName: r.stage_name as string,
    stageType: r.type as StageType,
    order: num(r.order),
    probability: r.probability === null ? null : num(r.probability),
    flowId: r.flow_id as string,
    flowTitle: r.flow_title as string,
    count: num(r.count),
    value: round2(num(r.value)),
    weightedValue: round2(num(r.weighted)),
  }));
  return {
    flowId: q.flowId ?? null,
    ...period(q),
    timezone: tz,
    totals: {
      count: open.count + won.count + lost.count,
      value: round2(open.value + won.value + lost.value),
      weightedValue: round2(stages.reduce((sum, s) => sum + s.weightedValue, 0)),
      open,
      won,
      lost,
      winRate: won.count + lost.count ? round2((won.count / (won.count + lost.count)) * 100) : null,
    },
    byStage: stages,
  };
}

/** Leads: totals, by status and source, score distribution, conversion (a deal refers to the lead). */
export async function leadsReport(ctx: Ctx, q: ReportRangeQuery): Promise<LeadsReportView> {
  const ws = ctx.actor.workspaceId;
  const tz = await workspaceTimeZone(ctx);
  const params: unknown[] = [ws];
  let filter = createdRange('l', q, tz, params);
  if (q.ownerId) {
    filter += ' and l.owner_id = ?';
    params.push(q.ownerId);
  }
  const [summary] = await rows(
    ctx,
    `select count(*)::int as total, coalesce(sum(l.value), 0)::float8 as value, avg(l.score)::float8 as avg_score,
            count(*) filter (where l.score < 25)::int as s0, count(*) filter (where l.score between 25 and 49)::int as s1,
            count(*) filter (where l.score between 50 and 74)::int as s2, count(*) filter (where l.score >= 75)::int as s3,
            count(*) filter (where exists (select 1 from deal d where d.workspace_id = l.workspace_id and d.lead_ref = l.id))::int as converted
       from lead l where l.workspace_id = ?${filter}`,
    params,
  );
  const byStatus = await rows(
    ctx,
    `select l.status, count(*)::int as count, coalesce(sum(l.value), 0)::float8 as value
       from lead l where l.workspace_id = ?${filter} group by l.status order by count(*) desc, l.status`,
    params,
  );
  const bySource = await rows(
    ctx,
    `select l.source, count(*)::int as count from lead l where l.workspace_id = ?${filter}
      group by l.source order by count(*) desc, l.source nulls last`,
    params,
  );
  const total = num(summary?.total);
  const converted = num(summary?.converted);
  return {
    ...period(q),
    timezone: tz,
    total,
    value: round2(num(summary?.value)),
    averageScore:
      summary?.avg_score === null || summary?.avg_score === undefined ? null : round2(num(summary.avg_score)),
    converted,
    conversionRate: total ? round2((converted / total) * 100) : null,
    byStatus: byStatus.map((r) => ({ status: r.status as string, count: num(r.count), value: round2(num(r.value)) })),
    bySource: bySource.map((r) => ({ source: (r.source as string | null) ?? null, count: num(r.count) })),
    scoreDistribution: [
      { range: '0-24' as const, count: num(summary?.s0) },
      { range: '25-49' as const, count: num(summary?.s1) },
      { range: '50-74' as const, count: num(summary?.s2) },
      { range: '75-100' as const, count: num(summary?.s3) },
    ],
  };
}

/** Workspace-wide record counts (optionally only records created in the period). */
export async function organizationReport(ctx: Ctx, q: ReportRangeQuery): Promise<OrganizationReportView> {
  const ws = ctx.actor.workspaceId;
  const tz = await workspaceTimeZone(ctx);
  const count = async (table: string, extra = '') => {
    const params: unknown[] = [ws];
    const filter = createdRange('t', q, tz, params);
    const [r] = await rows(
      ctx,
      `select count(*)::int as n from ${table} t where t.workspace_id = ?${extra}${filter}`,
      params,
    );
    return num(r?.n);
  };
  const dealParams: unknown[] = [ws];
  const dealFilter = createdRange('d', q, tz, dealParams);
  const deals = await rows(
    ctx,
    `select d.status, count(*)::int as count, coalesce(sum(d.value), 0)::float8 as value from deal d where d.workspace_id = ?${dealFilter} group by d.status`,
    dealParams,
  );
  const dealStatus = (s: string) => {
    const r = deals.find((x) => x.status === s);
    return { count: num(r?.count), value: round2(num(r?.value)) };
  };
  const [companies, people, leads, activities, openTasks, doneTasks, notes, calls, events, users] = await Promise.all([
    count('company'),
    count('person'),
    count('lead'),
    count('activity', ' and not t.system'),
    count('task', ` and t.status <> 'done'`),
    count('task', ` and t.status = 'done'`),
    count('note'),
    count('call'),
    count('calendar_event'),
    count('app_user'),
  ]);
  return {
    ...period(q),
    timezone: tz,
    companies,
    people,
    leads,
    deals: { open: dealStatus('open'), won: dealStatus('won'), lost: dealStatus('lost') },
    activities,
    tasks: { open: openTasks, done: doneTasks },
    notes,
    calls,
    events,
    users,
  };
}

const HISTORY_SOURCES: Record<HistoryStat, { table: string; owner: string; extra: string }> = {
  deals: { table: 'deal', owner: 'owner_id', extra: '' },
  leads: { table: 'lead', owner: 'owner_id', extra: '' },
  activities: { table: 'activity', owner: 'owner_id', extra: ' and not t.system' },
  companies: { table: 'company', owner: 'owner_id', extra: '' },
};

/** Records created per local day (workspace time zone), every day of the range present (0 when none). */
export async function historyReport(ctx: Ctx, q: HistoryReportQuery): Promise<HistoryReportView> {
  const tz = await workspaceTimeZone(ctx);
  const first = 'day' in q.dateFrom ? q.dateFrom.day : localDay(q.dateFrom.at, tz);
  const last = 'day' in q.dateTo ? q.dateTo.day : localDay(q.dateTo.at, tz);
  if (first > last) throw new DomainError('validation', 'startDate must not be after endDate');
  const days = daysBetween(first, last);
  if (days.length > MAX_HISTORY_DAYS)
    throw new DomainError('validation', `the range may span at most ${MAX_HISTORY_DAYS} days`);
  const source = HISTORY_SOURCES[q.stat];
  const params: unknown[] = [tz, ctx.actor.workspaceId];
  let filter = createdRange('t', q, tz, params);
  if (q.userId) {
    filter += ` and t.${source.owner} = ?`;
    params.push(q.userId);
  }
  const counts = await rows(
    ctx,
    // Grouped by the local date, formatted once per day (not once per row: to_char per row cost
    // more than the scan itself).
    `select to_char(x.day, 'YYYY-MM-DD') as day, x.n from (
       select (t.created_at at time zone ?)::date as day, count(*)::int as n
         from ${source.table} t where t.workspace_id = ?${source.extra}${filter} group by 1) x`,
    params,
  );
  const byDay = new Map(counts.map((r) => [String(r.day), num(r.n)]));
  const series = days.map((date) => ({ date, count: byDay.get(date) ?? 0 }));
  return {
    stat: q.stat,
    startDate: first,
    endDate: last,
    userId: q.userId ?? null,
    timezone: tz,
    total: series.reduce((sum, d) => sum + d.count, 0),
    series,
  };
}

/**
 * Offers: count and value (total incl. VAT, major units) by status, where a sent offer past its
 * validUntil counts as expired; sent = every offer ever sent (sentAt set), conversion = accepted
 * / sent, average values over all offers and over accepted ones. One currency is assumed per
 * workspace; `byCurrency` splits the values when offers use several.
 */
export async function offersReport(ctx: Ctx, q: ReportRangeQuery): Promise<OffersReportView> {
  const ws = ctx.actor.workspaceId;
  const tz = await workspaceTimeZone(ctx);
  const params: unknown[] = [];
  let filter = createdRange('o', q, tz, params);
  if (q.ownerId) {
    filter += ' and o.owner_id = ?';
    params.push(q.ownerId);
  }
  const status = `case when o.status = 'sent' and o.valid_until < to_char(now() at time zone 'UTC', 'YYYY-MM-DD') then 'expired' else o.status end`;
  const byStatus = await rows(
    ctx,
    `select ${status} as status, count(*)::int as count, coalesce(sum(o.total_minor), 0)::text as value
       from offers o where o.workspace_id = ? and o.kind = 'offer'${filter} group by 1 order by 1`,
    [ws, ...params],
  );
  const [totals] = await rows(
    ctx,
    `select count(*)::int as count, coalesce(sum(o.total_minor), 0)::text as value, coalesce(round(avg(o.total_minor)), 0)::text as average,
            count(*) filter (where o.sent_at is not null)::int as sent,
            coalesce(sum(o.total_minor) filter (where o.sent_at is not null), 0)::text as sent_value,
            count(*) filter (where o.status = 'accepted')::int as accepted,
            coalesce(sum(o.total_minor) filter (where o.status = 'accepted'), 0)::text as accepted_value,
            coalesce(round(avg(o.total_minor) filter (where o.status = 'accepted')), 0)::text as accepted_average,
            count(*) filter (where o.status = 'declined')::int as declined
       from offers o where o.workspace_id = ? and o.kind = 'offer'${filter}`,
    [ws, ...params],
  );
  const byCurrency = await rows(
    ctx,
    `select o.currency, count(*)::int as count, coalesce(sum(o.total_minor), 0)::text as value
       from offers o where o.workspace_id = ? and o.kind = 'offer'${filter} group by o.currency order by o.currency`,
    [ws, ...params],
  );
  // Sums are bigint minor units (exact); shown in major units.
  const major = (v: unknown): number => Number(v ?? 0) / 100;
  const t = totals ?? {};
  const sent = num(t.sent);
  const accepted = num(t.accepted);
  return {
    period: period(q),
    total: num(t.count),
    totalValue: major(t.value),
    averageValue: major(t.average),
    byStatus: byStatus.map((r) => ({ status: r.status as OfferStatus, count: num(r.count), value: major(r.value) })),
    sent,
    sentValue: major(t.sent_value),
    accepted,
    acceptedValue: major(t.accepted_value),
    averageAcceptedValue: major(t.accepted_average),
    declined: num(t.declined),
    conversionRate: sent ? round2((accepted / sent) * 100) : 0,
    byCurrency: byCurrency.map((r) => ({ currency: r.currency as string, count: num(r.count), value: major(r.value) })),
  };
}
