import type { Ctx } from '../../platform/context';
import { notFound } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { likePattern, type PageRequest } from '../../platform/shared/listing';
import { Person } from '../people';
import { SupportTicket } from './support.entity';
import { serializeTicket } from './tickets.service';
import type { SupportCustomerDetailView, SupportCustomerView } from './support.schemas';

/**
 * Support customers are derived from tickets: one per person, else per customer e-mail, else per
 * chat visitor id. Raw SQL names the workspace explicitly (it bypasses the tenant filter).
 */

const KEY = `case when t.person_ref is not null then 'person' when t.customer_email is not null then 'email' else 'visitor' end`;
const VALUE = `coalesce(t.person_ref, t.customer_email, t.visitor_id)`;
const OPEN = `t.status in ('open', 'pending', 'on_hold')`;
const SORT_SQL = {
  lastActivityAt: 'last_activity_at',
  totalTickets: 'total_tickets',
  openTickets: 'open_tickets',
  unread: 'unread',
} as const;

export interface SupportCustomersQuery extends PageRequest {
  search?: string;
  q?: string;
  sortBy: keyof typeof SORT_SQL;
  sortOrder: 'asc' | 'desc';
}

/** What AGGREGATES selects (counts are ::int; the timestamp may come back as a Date or a string). */
interface AggregateRow {
  name: string | null;
  email: string | null;
  visitor_id: string | null;
  total_tickets: number | string | null;
  open_tickets: number | string | null;
  unread: number | string | null;
  last_activity_at: Date | string | null;
}
type CustomerType = SupportCustomerView['type'];
type CustomerRow = AggregateRow & { type: CustomerType; value: string };

const isoOrNull = (v: Date | string | null | undefined): string | null =>
  v instanceof Date ? v.toISOString() : v ? new Date(String(v)).toISOString() : null;

const customerView = (r: CustomerRow): SupportCustomerView => ({
  type: r.type,
  value: r.value,
  personId: r.type === 'person' ? r.value : null,
  email: r.email ?? null,
  name: r.name ?? null,
  visitorId: r.visitor_id ?? null,
  totalTickets: Number(r.total_tickets),
  openTickets: Number(r.open_tickets),
  unread: Number(r.unread),
  lastActivityAt: isoOrNull(r.last_activity_at),
});

const AGGREGATES = `max(coalesce(nullif(trim(concat_ws(' ', p.first_name, p.last_name)), ''), t.customer_name)) as name, max(t.customer_email) as email, max(t.visitor_id) as visitor_id,
  count(*)::int as total_tickets, count(*) filter (where ${OPEN})::int as open_tickets, coalesce(sum(t.unread_count), 0)::int as unread, max(t.last_activity_at) as last_activity_at`;
const JOIN = `from support_ticket t left join person p on p.workspace_id = t.workspace_id and p.id = t.person_ref`;

export async function listSupportCustomers(
  ctx: Ctx,
  query: SupportCustomersQuery,
): Promise<{ items: SupportCustomerView[]; total: number }> {
  const params: unknown[] = [ctx.actor.workspaceId];
  let where = `t.workspace_id = ? and ${VALUE} is not null`;
  const search = query.search ?? query.q;
  if (search) {
    const like = likePattern(search);
    where += ` and (t.customer_email ilike ? or t.customer_name ilike ? or concat_ws(' ', p.first_name, p.last_name) ilike ? or t.visitor_id ilike ?)`;
    params.push(like, like, like, like);
  }
  const dir = query.sortOrder === 'asc' ? 'asc' : 'desc';
  const result = await ctx.em.execute<(CustomerRow & { full_count: number })[]>(
    `select ${KEY} as type, ${VALUE} as value, ${AGGREGATES}, count(*) over ()::int as full_count
       ${JOIN} where ${where} group by 1, 2
      order by ${SORT_SQL[query.sortBy]} ${dir} nulls last, value asc limit ? offset ?`,
    [...params, query.limit, (query.page - 1) * query.limit],
  );
  let total = Number(result[0]?.full_count ?? 0);
  if (!result.length && query.page > 1) {
    const [c] = await ctx.em.execute<{ n: number }[]>(
      `select count(distinct (${KEY}, ${VALUE}))::int as n ${JOIN} where ${where}`,
      params,
    );
    total = Number(c?.n ?? 0);
  }
  return { items: result.map(customerView), total };
}

/**
 * One customer by person id, e-mail address or visitor id: stats, the person (if any) and their tickets (newest first,
 * up to 100).
 */
export async function supportCustomerDetail(
  ctx: Ctx,
  type: CustomerType,
  value: string,
): Promise<SupportCustomerDetailView> {
  const ws = ctx.actor.workspaceId;
  const column = type === 'person' ? 't.person_ref' : type === 'email' ? 't.customer_email' : 't.visitor_id';
  const key = type === 'email' ? value.toLowerCase() : value;
  // An e-mail customer is the tickets without a person carrying that address (person tickets belong to the person).
  const extra =
    type === 'email'
      ? ' and t.person_ref is null'
      : type === 'visitor'
        ? ' and t.person_ref is null and t.customer_email is null'
        : '';
  const person = type === 'person' && isId(value) ? await ctx.em.findOne(Person, { _id: value }) : null;
  const [stats] = await ctx.em.execute<AggregateRow[]>(
    `select ${AGGREGATES} ${JOIN} where t.workspace_id = ? and ${column} = ?${extra}`,
    [ws, key],
  );
  if (!person && !Number(stats?.total_tickets ?? 0)) throw notFound('support customer');
  const where =
    type === 'person'
      ? { personRef: key }
      : type === 'email'
        ? { customerEmail: key, personRef: null }
        : { visitorId: key, personRef: null, customerEmail: null };
  const tickets = await ctx.em.find(SupportTicket, where, { orderBy: { createdAt: 'desc', _id: 'desc' }, limit: 100 });
  const view = customerView({
    ...stats,
    type,
    value: key,
    ...(person
      ? {
          name: [person.firstName, person.lastName].filter(Boolean).join(' '),
          email: stats?.email ?? person.emails[0]?.email ?? null,
        }
      : {}),
  });
  return {
    ...view,
    person: person
      ? {
          _id: person._id,
          firstName: person.firstName,
          lastName: person.lastName ?? null,
          emails: person.emails,
          companyId: person.companyId ?? null,
        }
      : null,
    tickets: tickets.map(serializeTicket),
  };
}
