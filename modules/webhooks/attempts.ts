import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import type { SafeFetch } from '../../platform/net/safe-fetch';
import { webhookIdOf } from './ports';
import { openSecret } from './secrets';
import { sendWebhook } from '../../adapters/webhooks/http-sender';
import type { AttemptResult } from '../../platform/shared/webhook-sender';
import type { WebhookDelivery, WebhookSubscription } from './webhook.entity';

/**
 * One attempt of one delivery and its bookkeeping, shared by the outbox subscriber (first
 * attempts, in batches), the retry activity and the API (test events, replays).
 */

export interface AttemptDeps {
  config: AppConfig;
  /** Tests may inject a fetch; default the guarded client. */
  fetch?: SafeFetch;
}

/** Columns of a subscription the sender needs (from the entity or a raw row). */
export interface SubscriptionTarget {
  url: string;
  secret: string;
  previousSecret?: string | null;
  previousSecretExpiresAt?: Date | null;
}

/** Plain secrets to sign with: the current one, plus the previous one while the rotation overlap lasts. */
export function signingSecrets(sub: SubscriptionTarget, key: string | undefined, now = Date.now()): string[] {
  const secrets = [openSecret(sub.secret, key)];
  if (sub.previousSecret && sub.previousSecretExpiresAt && sub.previousSecretExpiresAt.getTime() > now)
    secrets.push(openSecret(sub.previousSecret, key));
  return secrets;
}

export function attempt(
  deps: AttemptDeps,
  sub: SubscriptionTarget,
  delivery: { _id: string; body: string },
): Promise<AttemptResult> {
  return sendWebhook({
    url: sub.url,
    webhookId: webhookIdOf(delivery._id),
    body: delivery.body,
    secrets: signingSecrets(sub, deps.config.webhooks.encryptionKey),
    allowHosts: deps.config.outboundAllowHosts,
    timeoutMs: deps.config.webhooks.timeoutMs,
    fetch: deps.fetch,
  });
}

/** Applies one attempt's result to the delivery entity (not flushed). `nextDelayMs` null: no further attempt. */
export function applyResult(
  delivery: WebhookDelivery,
  result: AttemptResult,
  nextDelayMs: number | null,
): 'delivered' | 'failed' | 'retrying' {
  const now = new Date();
  delivery.attempts += 1;
  delivery.lastStatusCode = result.statusCode;
  delivery.lastError = result.error;
  delivery.lastDurationMs = result.durationMs;
  delivery.lastAttemptAt = now;
  if (result.ok) {
    delivery.status = 'delivered';
    delivery.deliveredAt = now;
    delivery.nextAttemptAt = null;
  } else if (result.gone || nextDelayMs === null) {
    delivery.status = 'failed';
    delivery.nextAttemptAt = null;
  } else {
    delivery.status = 'retrying';
    delivery.nextAttemptAt = new Date(now.getTime() + nextDelayMs);
  }
  delivery.updatedAt = now;
  return delivery.status as 'delivered' | 'failed' | 'retrying';
}

/** A success resets the failure streak (last_success_at is refreshed at most every 10 seconds). */
export async function recordSuccesses(em: EntityManager, subscriptionIds: readonly string[]): Promise<void> {
  await em.getConnection().execute(
    `update webhook_subscription set failed_deliveries_in_row = 0, last_success_at = now()
     where id in (select jsonb_array_elements_text(?::jsonb)) and (failed_deliveries_in_row <> 0 or last_success_at is null or last_success_at < now() - interval '10 seconds')`,
    [JSON.stringify(subscriptionIds)],
    'run',
  );
}

const GONE_REASON = 'the endpoint answered 410 Gone';

/**
 * The subscription's side of an outcome, in SQL so concurrent deliveries do not lose updates:
 * a success resets the failure streak; 410 disables at once; a delivery that failed its last
 * attempt extends the streak and disables the subscription when it reaches the configured count.
 */
export async function recordOnSubscription(
  em: EntityManager,
  config: AppConfig,
  subscriptionId: string,
  result: AttemptResult,
  finalFailure: boolean,
): Promise<void> {
  const conn = em.getConnection();
  if (result.ok) return recordSuccesses(em, [subscriptionId]);
  if (result.gone) {
    await conn.execute(
      `update webhook_subscription set active = false, disabled_reason = ?, disabled_at = now(), last_failure_at = now(), updated_at = now() where id = ? and active`,
      [GONE_REASON, subscriptionId],
      'run',
    );
    return;
  }
  if (!finalFailure) {
    await conn.execute(`update webhook_subscription set last_failure_at = now() where id = ?`, [subscriptionId], 'run');
    return;
  }
  const limit = config.webhooks.disableAfterFailedDeliveries;
  await conn.execute(
    `update webhook_subscription set failed_deliveries_in_row = failed_deliveries_in_row + 1, last_failure_at = now(),
       active = case when failed_deliveries_in_row + 1 >= ? then false else active end,
       disabled_at = case when active and failed_deliveries_in_row + 1 >= ? then now() else disabled_at end,
       disabled_reason = case when active and failed_deliveries_in_row + 1 >= ? then ? else disabled_reason end
     where id = ?`,
    [limit, limit, limit, `${limit} deliveries in a row failed every attempt`, subscriptionId],
    'run',
  );
}

export type { WebhookSubscription };
