/** Activities of the scheduled SMS workflow; each takes ids only and loads the message itself. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { SmsGateway } from '../../platform/ports/messaging.port';
import { smsGatewayFromConfig } from './sms-gateway';
import { markScheduledFailed, sendScheduledSms, type ScheduledSendResult } from './sms-scheduled.service';

export interface SmsActivityOptions {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  gateway?: SmsGateway;
}

export function createSmsActivities(opts: SmsActivityOptions) {
  let gateway = opts.gateway;
  const gw = (): SmsGateway => (gateway ??= smsGatewayFromConfig(opts.config));
  return {
    async sendScheduledSms(input: { workspaceId: string; scheduledId: string }): Promise<ScheduledSendResult> {
      const res = await sendScheduledSms(opts.orm, input, gw());
      opts.log.info(
        { workspaceId: input.workspaceId, scheduledId: input.scheduledId, status: res.status, smsId: res.smsId },
        'scheduled SMS',
      );
      return res;
    },
    async failScheduledSms(input: {
      workspaceId: string;
      scheduledId: string;
      error: string;
    }): Promise<ScheduledSendResult> {
      return markScheduledFailed(opts.orm, input, input.error);
    },
  };
}
