import type { Ctx } from '../../platform/context';
import { ScheduledSms, SmsMessage } from '../../modules/messaging/sms-message.entity';
import { counterpartyOf } from '../../modules/messaging/sms-phone';
import { scheduledSmsWorkflowId } from '../../modules/messaging/sms-workflow-ids';
import { createRecord } from '../../platform/shared/records';

let seq = 0;
/** A Danish mobile number no other test uses (E.164). */
export const uniquePhone = (): string =>
  `+452${String((Date.now() * 100 + (++seq % 100)) % 10_000_000).padStart(7, '0')}`;

/** SMS rows straight into the store (no gateway): for suites that need messages, not sends. */
export async function insertSms(
  ctx: Ctx,
  seed: Partial<Pick<SmsMessage, 'direction' | 'body' | 'unread' | 'starred' | 'personId' | 'status'>> & {
    phone?: string;
  } = {},
): Promise<SmsMessage> {
  const phone = seed.phone ?? uniquePhone();
  const c = counterpartyOf(phone)!;
  const direction = seed.direction ?? 'inbound';
  const sms = createRecord(ctx, SmsMessage, {
    direction,
    from: direction === 'inbound' ? c.phoneNumber : 'Acme',
    to: direction === 'inbound' ? '+4570000000' : c.phoneNumber,
    body: seed.body ?? 'Hello',
    status: seed.status ?? (direction === 'inbound' ? 'received' : 'sent'),
    providerMessageId: null,
    unread: seed.unread ?? direction === 'inbound',
    starred: seed.starred ?? false,
    phoneNumber: c.phoneNumber,
    phoneTail: c.phoneTail,
    personId: seed.personId ?? null,
    companyId: null,
    leadId: null,
    dealId: null,
    source: direction === 'inbound' ? 'gateway' : 'api',
    sourceRef: null,
    activityId: null,
    error: null,
    sentAt: null,
    deliveredAt: null,
  });
  await ctx.em.persist(sms).flush();
  return sms;
}

/** A scheduled row without a workflow (nothing will send it). */
export async function insertScheduledSms(ctx: Ctx): Promise<ScheduledSms> {
  const row = createRecord(ctx, ScheduledSms, {
    to: uniquePhone(),
    from: 'Acme',
    message: 'Later',
    sendAt: new Date(Date.now() + 30 * 86_400_000),
    status: 'scheduled',
    links: {},
    smsId: null,
    error: null,
    workflowId: '',
    createdBy: ctx.actor.userId,
    sentAt: null,
    cancelledAt: null,
  });
  row.workflowId = scheduledSmsWorkflowId(ctx.actor.workspaceId, row._id);
  await ctx.em.persist(row).flush();
  return row;
}
