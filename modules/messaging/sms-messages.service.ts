import type { FilterQuery } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { firstPhoneMatch, type LookupMatch, MATCH_TAIL_DIGITS, type NormalizedPhone } from '../crm-connect';
import { notFound } from '../../platform/errors';
import { dateWhere, findPage, type DateFilterInput, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { SmsSummaryView, SmsThreadRowView, SmsThreadView, SmsView } from './sms.views';
import { SmsMessage, type SmsDirection } from './sms-message.entity';
import { counterpartyOf } from './sms-phone';

/**
 * Reads and flags of stored SMS (GET/PUT /sms, /sms/threads). Writes of messages live in sms.service and
 * sms-inbound.service.
 */

/** What a message and its summary both show first. */
const SMS_HEAD_FIELDS = ['_id', 'direction', 'from', 'to', 'body', 'status'] as const;

export const SMS_FIELDS = [
  ...SMS_HEAD_FIELDS,
  'providerMessageId',
  'unread',
  'starred',
  'phoneNumber',
  'personId',
  'companyId',
  'leadId',
  'dealId',
  'source',
  'sourceRef',
  'error',
  'sentAt',
  'deliveredAt',
  'createdAt',
  'updatedAt',
] as const;
export const SMS_SUMMARY_FIELDS = [...SMS_HEAD_FIELDS, 'unread', 'starred', 'phoneNumber', 'createdAt'] as const;

export const serializeSms = (m: SmsMessage): SmsView => plainOf(m, SMS_FIELDS);
export const serializeSmsSummary = (m: SmsMessage): SmsSummaryView => plainOf(m, SMS_SUMMARY_FIELDS);

/**
 * Messages whose counterparty matches `wanted` by the crm-connect rule: equal digits, or equal last
 * 8 digits when one side has no country prefix (two "+" numbers must be equal).
 */
export function phoneWhere(wanted: NormalizedPhone): FilterQuery<SmsMessage> {
  const exact = { phoneNumber: { $in: [`+${wanted.digits}`, wanted.digits] } };
  if (wanted.digits.length < MATCH_TAIL_DIGITS) return exact;
  const tail = wanted.digits.slice(-MATCH_TAIL_DIGITS);
  const byTail = wanted.international ? { phoneTail: tail, phoneNumber: { $re: '^[0-9]' } } : { phoneTail: tail };
  return { $or: [exact, byTail] } as FilterQuery<SmsMessage>;
}

export interface ListSmsInput extends PageRequest, DateFilterInput {
  direction?: SmsDirection;
  unread?: boolean;
  starred?: boolean;
  phoneNumber?: NormalizedPhone;
  personId?: string;
  companyId?: string;
  leadId?: string;
  dealId?: string;
}

/** Newest first. */
export async function listSms(ctx: Ctx, q: ListSmsInput): Promise<{ items: SmsMessage[]; total: number }> {
  const where: Record<string, unknown> = { ...dateWhere(q) };
  for (const key of ['direction', 'unread', 'starred', 'personId', 'companyId', 'leadId', 'dealId'] as const)
    if (q[key] !== undefined) where[key] = q[key];
  const filter = q.phoneNumber ? { $and: [where, phoneWhere(q.phoneNumber)] } : where;
  return findPage(ctx.em, SmsMessage, filter as FilterQuery<SmsMessage>, q, { createdAt: 'desc' });
}

/** `refresh` re-reads a row this EM already holds (a send updates it with native updates). */
export async function getSms(ctx: Ctx, id: string, opts: { refresh?: boolean } = {}): Promise<SmsMessage> {
  return (
    (await ctx.em.findOne(SmsMessage, { _id: id }, { refresh: opts.refresh })) ??
    (() => {
      throw notFound('sms');
    })()
  );
}

export async function updateSmsFlags(
  ctx: Ctx,
  id: string,
  flags: { unread?: boolean; starred?: boolean },
): Promise<SmsMessage> {
  const sms = await getSms(ctx, id);
  if (flags.unread !== undefined) sms.unread = flags.unread;
  if (flags.starred !== undefined) sms.starred = flags.starred;
  await ctx.em.flush();
  return sms;
}

export interface ThreadContact {
  entityType: LookupMatch['entityType'];
  _id: string;
  name: string;
}

/** The contact a number belongs to now (person, else company, else lead), by the crm-connect rule. */
export async function resolveContact(ctx: Ctx, phoneNumber: string): Promise<ThreadContact | null> {
  const match = await firstPhoneMatch(ctx, phoneNumber);
  return match ? { entityType: match.entityType, _id: match._id, name: match.name } : null;
}

export type ThreadRow = SmsThreadRowView;

/** One row per counterparty number, most recent conversation first. */
export async function listThreads(
  ctx: Ctx,
  q: PageRequest & { unread?: boolean },
): Promise<{ items: ThreadRow[]; total: number }> {
  const conn = ctx.em.getConnection();
  const ws = ctx.actor.workspaceId;
  // Raw SQL is not covered by the tenant filter: the workspace is bound explicitly in both queries.
  const having =
    q.unread === true
      ? "having count(*) filter (where unread and direction = 'inbound') > 0"
      : q.unread === false
        ? "having count(*) filter (where unread and direction = 'inbound') = 0"
        : '';
  const rows = await conn.execute<
    { phone_number: string; message_count: string; unread_count: string; last_at: Date; last_id: string }[]
  >(
    `select phone_number, count(*) as message_count, count(*) filter (where unread and direction = 'inbound') as unread_count,
            max(created_at) as last_at, (array_agg(id order by created_at desc, id desc))[1] as last_id
       from sms_message where workspace_id = ? group by phone_number ${having}
      order by last_at desc, phone_number limit ? offset ?`,
    [ws, q.limit, (q.page - 1) * q.limit],
  );
  const [{ total }] = (await conn.execute<{ total: string }[]>(
    `select count(*) as total from (select phone_number from sms_message where workspace_id = ? group by phone_number ${having}) t`,
    [ws],
  )) as [{ total: string }];
  const last = await ctx.em.find(SmsMessage, { _id: { $in: rows.map((r) => r.last_id) } });
  const byId = new Map(last.map((m) => [m._id, m]));
  const items: ThreadRow[] = [];
  for (const r of rows) {
    items.push({
      phoneNumber: r.phone_number,
      messageCount: Number(r.message_count),
      unreadCount: Number(r.unread_count),
      lastMessageAt: new Date(r.last_at).toISOString(),
      lastMessage: serializeSms(byId.get(r.last_id)!),
      contact: await resolveContact(ctx, r.phone_number),
    });
  }
  return { items, total: Number(total) };
}

export function parseThreadNumber(raw: string): NormalizedPhone {
  const c = counterpartyOf(raw);
  if (!c) throw notFound('sms thread');
  return c.normalized;
}

/**
 * The messages with one number (newest first, paged), its unread count and the resolved contact; 404 when there are
 * none.
 */
export async function getThread(
  ctx: Ctx,
  raw: string,
  page: PageRequest,
): Promise<{ thread: SmsThreadView; total: number }> {
  const wanted = parseThreadNumber(raw);
  const { items, total } = await findPage(ctx.em, SmsMessage, phoneWhere(wanted), page, { createdAt: 'desc' });
  if (!total) throw notFound('sms thread');
  const unreadCount = await ctx.em.count(SmsMessage, {
    $and: [phoneWhere(wanted), { direction: 'inbound', unread: true }],
  } as FilterQuery<SmsMessage>);
  const phoneNumber = `${wanted.international ? '+' : ''}${wanted.digits}`;
  return {
    thread: {
      phoneNumber,
      contact: await resolveContact(ctx, phoneNumber),
      unreadCount,
      messages: items.map(serializeSms),
    },
    total,
  };
}

/**
 * `{ unread: false }` marks every unread inbound message of the thread read; `true` marks the latest inbound one
 * unread.
 */
export async function markThread(
  ctx: Ctx,
  raw: string,
  unread: boolean,
): Promise<{ phoneNumber: string; updated: number; unreadCount: number }> {
  const wanted = parseThreadNumber(raw);
  const phoneNumber = `${wanted.international ? '+' : ''}${wanted.digits}`;
  if (!(await ctx.em.count(SmsMessage, phoneWhere(wanted)))) throw notFound('sms thread');
  const inbound = { $and: [phoneWhere(wanted), { direction: 'inbound' }] } as FilterQuery<SmsMessage>;
  let updated = 0;
  if (!unread) {
    updated = await ctx.em.nativeUpdate(SmsMessage, { $and: [inbound, { unread: true }] } as FilterQuery<SmsMessage>, {
      unread: false,
      updatedAt: new Date(),
    });
  } else {
    const latest = await ctx.em.findOne(SmsMessage, inbound, { orderBy: { createdAt: 'desc', _id: 'desc' } });
    if (latest && !latest.unread) {
      latest.unread = true;
      await ctx.em.flush();
      updated = 1;
    }
  }
  const unreadCount = await ctx.em.count(SmsMessage, { $and: [inbound, { unread: true }] } as FilterQuery<SmsMessage>);
  return { phoneNumber, updated, unreadCount };
}
