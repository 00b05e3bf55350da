/** Activities of the booking approval workflow; ids in, rows loaded here, idempotent per booking + notice. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ApproverNoticeInput, DecideActivityInput, DecisionResult } from './approval-types';
import { activityCtx, decideBooking } from './approval.service';
import { mailApprovers, queueApproverNotice } from './approver-notices';
import { Booking } from './booking.entity';
import { decisionLinkKey } from './decision-links';
import { lazyMessaging } from './notifications';
import type { AppConfig } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { MessagingDeps } from '../email';
import { forkForWorkspace } from '../../platform/orm/tenant';

export interface BookingActivityOptions {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  messaging?: MessagingDeps;
}

export function createBookingActivities(opts: BookingActivityOptions) {
  const messaging = lazyMessaging(opts);
  /** Events of a decision are attributed to the deciding user, else (deadline) to the booking's agent. */
  const actorOf = async (workspaceId: string, bookingId: string, userId: string): Promise<string> => {
    if (userId) return userId;
    const b = await forkForWorkspace(opts.orm.em, workspaceId).findOne(
      Booking,
      { _id: bookingId },
      { fields: ['agentId'] },
    );
    return b?.agentId ?? '';
  };
  return {
    async decideBooking(input: DecideActivityInput): Promise<DecisionResult> {
      const ctx = activityCtx(
        opts.orm,
        input.workspaceId,
        await actorOf(input.workspaceId, input.bookingId, input.userId),
      );
      const result = await decideBooking(ctx, input);
      opts.log.info(
        {
          workspaceId: input.workspaceId,
          bookingId: input.bookingId,
          decision: input.decision,
          timeout: Boolean(input.timeout),
          ...result,
        },
        'booking decision',
      );
      return result;
    },
    /** Runs before the approval-reminder-offsets patch: the notice is sent from the activity itself. */
    async notifyBookingApprovers(input: {
      workspaceId: string;
      bookingId: string;
      kind: 'request' | 'reminder';
      n: number;
    }): Promise<{ sent: boolean; reason?: string }> {
      const ctx = activityCtx(opts.orm, input.workspaceId, await actorOf(input.workspaceId, input.bookingId, ''));
      return mailApprovers(
        ctx,
        input.bookingId,
        { key: `${input.kind}:${input.n}`, kind: input.kind },
        {
          messaging: messaging(),
          publicBaseUrl: opts.config.publicBaseUrl,
          linkKey: decisionLinkKey(opts.config),
          log: opts.log,
        },
      );
    },
    /** An approver notice as an outbox event, at most once per booking, generation and notice (approver-notices.ts). */
    async queueApproverNotice(input: ApproverNoticeInput): Promise<{ queued: boolean }> {
      const ctx = activityCtx(opts.orm, input.workspaceId, await actorOf(input.workspaceId, input.bookingId, ''));
      const { workspaceId: _w, ...notice } = input;
      const result = await queueApproverNotice(ctx, notice);
      opts.log.info({ workspaceId: input.workspaceId, ...notice, ...result }, 'approver notice');
      return result;
    },
  };
}
