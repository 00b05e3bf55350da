import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { SafeFetch } from '../../platform/net/safe-fetch';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { applyResult, attempt, recordOnSubscription } from './attempts';
import { WebhookDelivery, WebhookSubscription } from './webhook.entity';

export interface WebhookActivityDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  fetch?: SafeFetch;
}

export type RetryOutcome = 'retry' | 'delivered' | 'failed' | 'gone';

/**
 * Activities of the webhook retry workflow. Inputs are ids only: the secret and body are loaded
 * here. Idempotent per workflow step (`retryStep`): a retried activity whose step was already
 * recorded does not send again.
 */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  return {
    async attemptWebhookDelivery(input: {
      workspaceId: string;
      deliveryId: string;
      step: number;
      nextDelayMs: number | null;
    }): Promise<RetryOutcome> {
      const em = forkForWorkspace(deps.orm.em, input.workspaceId);
      const delivery = await em.findOne(WebhookDelivery, { _id: input.deliveryId });
      if (!delivery) return 'gone';
      if (delivery.status === 'delivered' || delivery.status === 'failed') return delivery.status;
      if (delivery.retryStep >= input.step) return 'retry';
      const sub = await em.findOne(WebhookSubscription, { _id: delivery.subscriptionId });
      if (!sub || !sub.active) {
        delivery.status = 'failed';
        delivery.nextAttemptAt = null;
        delivery.lastError = sub
          ? `subscription disabled${sub.disabledReason ? `: ${sub.disabledReason}` : ''}`
          : 'subscription deleted';
        await em.flush();
        return 'failed';
      }
      const result = await attempt(deps, sub, delivery);
      const status = applyResult(delivery, result, input.nextDelayMs);
      delivery.retryStep = input.step;
      await em.flush();
      await recordOnSubscription(em, deps.config, sub._id, result, status === 'failed' && !result.gone);
      deps.log.info(
        { deliveryId: delivery._id, subscriptionId: sub._id, step: input.step, status, statusCode: result.statusCode },
        'webhook retry attempt',
      );
      return status === 'retrying' ? 'retry' : result.gone ? 'gone' : status;
    },
  };
}
