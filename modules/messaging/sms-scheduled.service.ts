import type { MikroORM } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import { getRecord } from '../../platform/shared/record-service';
import type { Logger } from '../../platform/logger';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { createRecord } from '../../platform/shared/records';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { ScheduledSmsView } from './sms.views';
import { DeliveryError } from '../../platform/ports/delivery-error.port';
import { checkLinks, type MessageLinks } from './outbound.service';
import type { SmsGateway } from '../../platform/ports/messaging.port';
import { ScheduledSms, type ScheduledSmsStatus } from './sms-message.entity';
import { sendSms, validateSms } from './sms.service';
import { scheduledSmsWorkflowId, type SmsSchedulerPort } from './sms-workflow-ids';

/**
 * Scheduled SMS: a row in sms_scheduled plus one Temporal workflow holding the durable timer.
 * States: scheduled → sending → sent | failed; scheduled → cancelled (DELETE). The activity moves
 * scheduled → sending with a conditional update and cancel moves scheduled → cancelled the same
 * way, so a cancel racing the timer either wins (nothing is sent) or answers 409.
 */

export const MAX_SCHEDULE_AHEAD_DAYS = 365;
const DAY_MS = 86_400_000;

export const SCHEDULED_FIELDS = [
  '_id',
  'to',
  'from',
  'message',
  'sendAt',
  'status',
  'smsId',
  'error',
  'workflowId',
  'sentAt',
  'cancelledAt',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;
export const serializeScheduled = (s: ScheduledSms): ScheduledSmsView => ({
  ...plainOf(s, SCHEDULED_FIELDS),
  ...s.links,
});

export interface ScheduleSmsInput {
  to: string;
  message: string;
  from?: string;
  sendAt: Date;
  links?: MessageLinks;
}
export interface ScheduleDeps {
  gateway: SmsGateway;
  scheduler: SmsSchedulerPort;
  log: Logger;
}

export async function scheduleSms(
  ctx: Ctx,
  input: ScheduleSmsInput,
  deps: ScheduleDeps,
  now = new Date(),
): Promise<ScheduledSms> {
  deps.gateway.assertConfigured?.();
  const sms = validateSms(
    { to: input.to, message: input.message, from: input.from, links: {} },
    { from: deps.gateway.defaultFrom, countryCode: deps.gateway.defaultCountryCode },
  );
  if (input.sendAt.getTime() <= now.getTime()) throw validation('sendAt: must be in the future');
  if (input.sendAt.getTime() > now.getTime() + MAX_SCHEDULE_AHEAD_DAYS * DAY_MS)
    throw validation(`sendAt: must be at most ${MAX_SCHEDULE_AHEAD_DAYS} days ahead`);
  const links = Object.fromEntries(Object.entries(input.links ?? {}).filter(([, v]) => v)) as MessageLinks;
  await checkLinks(ctx, links);
  const row = createRecord(ctx, ScheduledSms, {
    to: sms.to,
    from: sms.from,
    message: sms.message,
    sendAt: input.sendAt,
    status: 'scheduled',
    links,
    smsId: null,
    error: null,
    workflowId: '',
    createdBy: ctx.actor.userId,
    sentAt: null,
    cancelledAt: null,
  });
  row.workflowId = scheduledSmsWorkflowId(ctx.actor.workspaceId, row._id);
  await ctx.em.persist(row).flush();
  try {
    await deps.scheduler.start({
      workspaceId: ctx.actor.workspaceId,
      scheduledId: row._id,
      sendAt: input.sendAt.toISOString(),
    });
  } catch (err) {
    deps.log.error({ err, scheduledId: row._id }, 'scheduled SMS: workflow start failed');
    row.status = 'failed';
    row.error = 'could not be scheduled: the workflow engine was unavailable';
    await ctx.em.flush();
    throw new DomainError(
      'upstream_failed',
      'could not schedule the SMS: the workflow engine is unavailable; retry later',
    );
  }
  return row;
}

export async function listScheduled(ctx: Ctx, q: PageRequest & { status?: ScheduledSmsStatus }) {
  return findPage(ctx.em, ScheduledSms, q.status ? { status: q.status } : {}, q, { sendAt: 'asc' });
}

export async function getScheduled(ctx: Ctx, id: string): Promise<ScheduledSms> {
  return getRecord(ctx, ScheduledSms, id, 'scheduled sms');
}

/** DELETE /sms/scheduled/:id: only a `scheduled` row can be cancelled (409 once sending, sent, failed or cancelled). */
export async function cancelScheduled(
  ctx: Ctx,
  id: string,
  deps: Pick<ScheduleDeps, 'scheduler' | 'log'>,
): Promise<ScheduledSms> {
  const now = new Date();
  const changed = await ctx.em.nativeUpdate(
    ScheduledSms,
    { _id: id, status: 'scheduled' },
    { status: 'cancelled', cancelledAt: now, updatedAt: now },
  );
  const row = await ctx.em.findOne(ScheduledSms, { _id: id }, { refresh: true });
  if (!row) throw notFound('scheduled sms');
  if (!changed)
    throw new DomainError('invalid_state', `the scheduled SMS cannot be cancelled: it is already ${row.status}`, {
      status: row.status,
    });
  // The row decides: a workflow that could not be cancelled now finds it cancelled and sends nothing.
  await deps.scheduler
    .cancel(row.workflowId)
    .catch((err: unknown) =>
      deps.log.warn({ err, scheduledId: id }, 'scheduled SMS: workflow cancel failed; the row is cancelled'),
    );
  return row;
}

export type ScheduledSendResult = { status: ScheduledSmsStatus | 'missing'; smsId?: string; error?: string };

const retryable = (err: unknown): boolean =>
  (err instanceof DeliveryError && err.outcome === 'not_sent' && !err.permanent) ||
  (err instanceof DomainError &&
    err.code === 'conflict' &&
    (err.details as { retryable?: boolean } | undefined)?.retryable === true);

/**
 * The timer fired: send once (idempotency key `sms-scheduled:<id>`, so a retried or duplicated
 * activity replays the stored result). Throws only errors worth retrying (gateway 5xx, a send in
 * progress); anything else marks the row failed.
 */
export async function sendScheduledSms(
  orm: MikroORM,
  input: { workspaceId: string; scheduledId: string },
  gateway: SmsGateway,
): Promise<ScheduledSendResult> {
  const em = forkForWorkspace(orm.em, input.workspaceId);
  const row = await em.findOne(ScheduledSms, { _id: input.scheduledId });
  if (!row) return { status: 'missing' };
  if (row.status !== 'scheduled' && row.status !== 'sending')
    return { status: row.status, ...(row.smsId ? { smsId: row.smsId } : {}) };
  if (row.status === 'scheduled') {
    const claimed = await em.nativeUpdate(
      ScheduledSms,
      { _id: row._id, status: 'scheduled' },
      { status: 'sending', updatedAt: new Date() },
    );
    if (!claimed)
      return { status: (await em.findOne(ScheduledSms, { _id: row._id }, { refresh: true }))?.status ?? 'missing' };
  }
  const ctx: Ctx = {
    em,
    actor: { workspaceId: input.workspaceId, userId: row.createdBy, role: 'owner', scopes: ['sms'] },
  };
  try {
    const sent = await sendSms(
      ctx,
      {
        to: row.to,
        message: row.message,
        from: row.from,
        links: row.links,
        idempotencyKey: `sms-scheduled:${row._id}`,
        source: 'api',
        sourceRef: row._id,
      },
      { gateway },
    );
    const now = new Date();
    await em.nativeUpdate(
      ScheduledSms,
      { _id: row._id },
      { status: 'sent', smsId: sent.smsId, sentAt: now, error: null, updatedAt: now },
    );
    return { status: 'sent', smsId: sent.smsId };
  } catch (err) {
    if (retryable(err)) throw err;
    return markScheduledFailed(orm, input, err instanceof Error ? err.message : String(err));
  }
}

/** Gives up on a scheduled SMS (its retries are spent, or it cannot be sent). */
export async function markScheduledFailed(
  orm: MikroORM,
  input: { workspaceId: string; scheduledId: string },
  error: string,
): Promise<ScheduledSendResult> {
  const em = forkForWorkspace(orm.em, input.workspaceId);
  await em.nativeUpdate(
    ScheduledSms,
    { _id: input.scheduledId, status: { $in: ['scheduled', 'sending'] } },
    { status: 'failed', error: error.slice(0, 2000), updatedAt: new Date() },
  );
  return { status: 'failed', error };
}
