/** Activities of the booking approval workflow; ids in, rows loaded here, idempotent per booking + notice. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { DecideActivityInput, DecisionResult } from './approval-types';
import { activityCtx, decideBooking } from './approval.service';
import { Booking } from './booking.entity';
import { lazyMessaging, notifyApprovers, type ApproverNotice } from './notifications';
import type { AppConfig } from '../../domain/config';
import type { Logger } from '../../domain/logger';
import type { MessagingDeps } from '../../domain/messaging/factory';
import { forkForWorkspace } from '../../domain/orm/tenant';

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
    async notifyBookingApprovers(
      input: { workspaceId: string; bookingId: string } & ApproverNotice,
    ): Promise<{ sent: boolean; reason?: string }> {
      const ctx = activityCtx(opts.orm, input.workspaceId, await actorOf(input.workspaceId, input.bookingId, ''));
      return notifyApprovers(
        ctx,
        input.bookingId,
        { kind: input.kind, n: input.n },
        { messaging: messaging(), publicBaseUrl: opts.config.publicBaseUrl, log: opts.log },
      );
    },
  };
}
