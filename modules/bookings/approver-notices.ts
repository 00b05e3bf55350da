/**
 * Approver e-mails of a pending booking. The approval workflow queues each notice (the request, and a reminder
 * `reminderHours` before the deadline) as an outbox event through `queueApproverNotice`: one conditional row update
 * (Booking.approvalNotices gains the notice's key) and the event in one transaction, so a retried activity (a worker
 * killed after the commit) queues nothing twice. The `booking-notifications` subscriber then sends one e-mail per
 * approver (send key per booking, notice and approver) with the outbox's retries, carrying that approver's signed
 * one-click link (decision-links.ts) when CRM_SECRETS_KEY is set.
 */
import { DateTime } from 'luxon';
import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { sendEmail, type MessagingDeps } from '../email';
import { emit } from '../../platform/outbox/emit';
import { inTransaction } from '../../platform/shared/tx';
import { User } from '../workspaces';
import type { ApproverNoticeInput } from './approval-types';
import { Booking, BookingConfig } from './booking.entity';
import { bookingEventPayload } from './bookings.service';
import { decisionLinkUrl, signDecisionLink } from './decision-links';
import { emailDeps, notConfigured, when } from './mail-parts';

export const noticeKey = (n: Pick<ApproverNoticeInput, 'generation' | 'kind' | 'reminderHours'>): string =>
  n.kind === 'request' ? `${n.generation}:request` : `${n.generation}:reminder:${n.reminderHours}`;

/** Queues one approver notice at most once per booking, generation and notice; nothing once not pending. */
export async function queueApproverNotice(
  ctx: Ctx,
  input: Omit<ApproverNoticeInput, 'workspaceId'>,
): Promise<{ queued: boolean }> {
  const key = noticeKey(input);
  return inTransaction(ctx, async () => {
    const rows = await ctx.em.execute<{ id: string }[]>(
      `update "booking" set "approval_notices" = "approval_notices" || jsonb_build_array(?::text)
        where "id" = ? and "workspace_id" = ? and "status" = 'pending' and "reschedule_count" = ?
          and not ("approval_notices" @> jsonb_build_array(?::text)) returning "id"`,
      [key, input.bookingId, ctx.actor.workspaceId, input.generation, key],
    );
    if (!rows.length) return { queued: false };
    const booking = await ctx.em.findOneOrFail(Booking, { _id: input.bookingId }, { refresh: true });
    const approvalDeadlineAt = (booking.approvalDeadlineAt ?? new Date()).toISOString();
    if (input.kind === 'request')
      emit(ctx, {
        type: 'booking_approval_requested',
        entityType: 'booking',
        entityId: booking._id,
        payload: bookingEventPayload(booking, {
          approvalDeadlineAt,
          reason: 'created' as const,
          generation: input.generation,
        }),
      });
    else
      emit(ctx, {
        type: 'booking_approval_reminder',
        entityType: 'booking',
        entityId: booking._id,
        payload: bookingEventPayload(booking, {
          approvalDeadlineAt,
          reminderHours: input.reminderHours ?? 0,
          generation: input.generation,
        }),
      });
    return { queued: true };
  });
}

/** Approvers: the config's, else the workspace's owners and admins. */
export async function approversOf(ctx: Ctx, config: BookingConfig): Promise<{ _id: string; email: string }[]> {
  const users = config.approvers.length
    ? await ctx.em.find(User, { _id: { $in: config.approvers } }, { fields: ['_id', 'email'] })
    : await ctx.em.find(User, { role: { $in: ['owner', 'admin'] } }, { fields: ['_id', 'email'], limit: 50 });
  const seen = new Set<string>();
  return users.filter((u) => !seen.has(u.email) && seen.add(u.email)).map((u) => ({ _id: u._id, email: u.email }));
}

export interface ApproverMailDeps {
  messaging: MessagingDeps;
  publicBaseUrl: string;
  /** The decision-link key (CRM_SECRETS_KEY); without it the e-mail names the API calls instead. */
  linkKey: Buffer | null;
  log: Logger;
}

export type ApproverNoticeKind = 'request' | 'reminder' | 'rescheduled';

/**
 * One e-mail per approver for a notice (send key booking:<id>:approval:<key>:<approver>, so an outbox retry sends
 * only what is missing); skipped once the booking is not pending.
 */
export async function mailApprovers(
  ctx: Ctx,
  bookingId: string,
  notice: { key: string; kind: ApproverNoticeKind; generation?: number },
  deps: ApproverMailDeps,
): Promise<{ sent: boolean; reason?: string }> {
  const booking = await ctx.em.findOne(Booking, { _id: bookingId });
  if (!booking || booking.status !== 'pending') return { sent: false, reason: booking ? booking.status : 'missing' };
  // A notice of an older generation (the booking was rescheduled since) has been replaced by a newer one.
  if (notice.generation !== undefined && notice.generation !== booking.rescheduleCount)
    return { sent: false, reason: 'superseded' };
  if (booking.approvalDeadlineAt && booking.approvalDeadlineAt.getTime() <= Date.now())
    return { sent: false, reason: 'deadline passed' };
  const config = await ctx.em.findOne(BookingConfig, { _id: booking.configId });
  if (!config) return { sent: false, reason: 'config missing' };
  const approvers = await approversOf(ctx, config);
  if (!approvers.length) return { sent: false, reason: 'no approvers' };
  const api = `${deps.publicBaseUrl.replace(/\/+$/, '')}/api/v1/bookings/${booking._id}`;
  const deadline = booking.approvalDeadlineAt
    ? DateTime.fromJSDate(booking.approvalDeadlineAt, { zone: booking.timeZone }).toFormat('d LLLL yyyy, HH:mm')
    : 'the deadline';
  const prefix = { request: '', reminder: 'Reminder: ', rescheduled: 'Rescheduled: ' }[notice.kind];
  const subject = `${prefix}Booking awaiting approval: ${booking.attendeeInfo.name}, ${when(booking)}`;
  try {
    for (const approver of approvers) {
      const link =
        deps.linkKey && booking.approvalDeadlineAt
          ? decisionLinkUrl(
              deps.publicBaseUrl,
              signDecisionLink(deps.linkKey, {
                workspaceId: booking.workspaceId,
                bookingId: booking._id,
                approverId: approver._id,
                generation: booking.rescheduleCount,
                expiresAt: booking.approvalDeadlineAt,
              }),
            )
          : null;
      const text = [
        `${booking.attendeeInfo.name} <${booking.attendeeInfo.email}> requested ${booking.meetingTypeName ?? 'a meeting'} (${config.name}) on ${when(booking)}.`,
        notice.kind === 'rescheduled' ? 'The booking was moved to this time; it still needs your decision.' : '',
        booking.attendeeInfo.notes ? `Notes: ${booking.attendeeInfo.notes}` : '',
        link ? `Approve or reject with one click: ${link}` : '',
        `With an API key: POST ${api}/approve  ·  POST ${api}/reject`,
        `Without a decision by ${deadline} (${booking.timeZone}) the booking is ${config.onApprovalTimeout === 'approve' ? 'approved' : 'rejected'} automatically.`,
      ]
        .filter(Boolean)
        .join('\n\n');
      await sendEmail(
        ctx,
        {
          to: [approver.email],
          subject,
          text,
          source: 'api',
          sourceRef: booking._id,
          idempotencyKey: `booking:${booking._id}:approval:${notice.key}:${approver._id}`,
          links: booking.personId ? { personId: booking.personId } : {},
        },
        emailDeps(deps.messaging),
      );
    }
    return { sent: true };
  } catch (err) {
    if (notConfigured(err)) {
      deps.log.warn({ bookingId }, 'booking approval e-mail skipped: e-mail is not configured');
      return { sent: false, reason: 'not_configured' };
    }
    // A refused address is not worth retrying; transport failures are.
    if (err instanceof DomainError && err.code === 'validation') return { sent: false, reason: err.message };
    throw err;
  }
}
