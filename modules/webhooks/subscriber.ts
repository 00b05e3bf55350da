import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import { newId } from '../../platform/ids';
import { executeLean } from '../../platform/orm/lean';
import type { Logger } from '../../platform/logger';
import type { BatchFailures, OutboxEventRecord, Subscriber } from '../../platform/outbox/subscriber';
import type { SafeFetch } from '../../platform/net/safe-fetch';
import { createLimiter, mapLimited } from '../../platform/shared/concurrency';
import { recordOnSubscription, recordSuccesses, signingSecrets } from './attempts';
import { subscribedTo, webhookTypeOf } from './event-types';
import type { WebhookRetryPort } from './ports';
import { sendWebhook } from '../../adapters/webhooks/http-sender';
import type { AttemptResult } from '../../platform/shared/webhook-sender';
import { webhookIdOf } from './ports';

export interface WebhookSubscriberDeps {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  retries: WebhookRetryPort;
  fetch?: SafeFetch;
}

interface SubRow {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}
interface DeliveryRow {
  id: string;
  workspace_id: string;
  subscription_id: string;
  event_id: string;
  body: string;
  status: string;
}

/** The webhook body: `{ type, timestamp, data }` with the event's payload as data (internal keys left out). */
export function webhookBody(type: string, occurredAt: Date, payload: Record<string, unknown>): string {
  const { causedBy: _causedBy, ...data } = payload;
  return JSON.stringify({ type, timestamp: occurredAt.toISOString(), data });
}

/**
 * Outbox subscriber `webhooks`: for each claimed batch, writes one `webhook_delivery` per event and
 * matching active subscription (idempotent on subscription + event), makes the first attempts at
 * once with bounded concurrency, and hands failed ones to the durable retry workflow. An event
 * counts as handled once each of its deliveries succeeded or has its retry workflow; so a crash
 * before that re-delivers the event and the remaining attempts or workflow starts are redone.
 * Events of one record arrive in order (the outbox holds a record's next event until then).
 */
export function createWebhookSubscriber(deps: WebhookSubscriberDeps): Subscriber {
  const { orm, config, log } = deps;
  const settings = config.webhooks;
  // One cap for the process, not per batch: batches the dispatcher runs side by side share it, so
  // one batch's tail and bookkeeping overlap the next one's POSTs without exceeding the limit.
  const inFlight = createLimiter(settings.concurrency);
  return {
    name: 'webhooks',
    handles: (event) => webhookTypeOf(event.type) !== undefined,
    async handleBatch(events: OutboxEventRecord[]): Promise<BatchFailures | void> {
      // Set-based statements with their JSON as bind parameters (executeLean), not escaped into the SQL text.
      const em = orm.em.fork();
      const workspaces = [...new Set(events.map((e) => e.workspaceId))];
      const subs = await executeLean<SubRow>(
        em,
        `select id, workspace_id, url, events, secret, previous_secret, previous_secret_expires_at from webhook_subscription where workspace_id in (select jsonb_array_elements_text(?::jsonb)) and active`,
        [JSON.stringify(workspaces)],
      );
      if (!subs.length) return;
      const now = new Date();
      const rows: (DeliveryRow & { event_type: string })[] = [];
      const eventIds: string[] = [];
      for (const event of events) {
        const type = webhookTypeOf(event.type)!;
        const matching = subs.filter((s) => s.workspace_id === event.workspaceId && subscribedTo(s.events, type));
        if (!matching.length) continue;
        eventIds.push(event.eventId);
        const body = webhookBody(type, new Date(event.occurredAt), event.payload);
        for (const s of matching) {
          rows.push({
            id: newId(now),
            workspace_id: event.workspaceId,
            subscription_id: s.id,
            event_id: event.eventId,
            event_type: type,
            body,
            status: 'pending',
          });
        }
      }
      if (!rows.length) return;
      const inserted = await executeLean<{ id: string }>(
        em,
        `insert into webhook_delivery (id, workspace_id, created_at, updated_at, subscription_id, event_id, event_type, body, status, attempts)
         select x.id, x.workspace_id, now(), now(), x.subscription_id, x.event_id, x.event_type, x.body, 'pending', 0
         from jsonb_to_recordset(?::jsonb) as x(id text, workspace_id text, subscription_id text, event_id text, event_type text, body text)
         on conflict (subscription_id, event_id) do nothing
         returning id`,
        [JSON.stringify(rows)],
      );
      // Every row new (the usual case): they are what this batch delivers. Otherwise an event came
      // again: re-read, so it finds its earlier rows (already attempted, or waiting for their workflow).
      const deliveries: DeliveryRow[] =
        inserted.length === rows.length
          ? rows
          : await executeLean<DeliveryRow>(
              em,
              `select id, workspace_id, subscription_id, event_id, body, status from webhook_delivery
         where subscription_id in (select jsonb_array_elements_text(?::jsonb)) and event_id in (select jsonb_array_elements_text(?::jsonb))
           and status in ('pending', 'retrying')`,
              [JSON.stringify([...new Set(rows.map((r) => r.subscription_id))]), JSON.stringify(eventIds)],
            );
      const subById = new Map(subs.map((s) => [s.id, s]));
      // Secrets opened once per subscription and batch, not per delivery.
      const secretsOf = new Map<string, string[]>();
      const secrets = (s: SubRow): string[] => {
        let list = secretsOf.get(s.id);
        if (!list)
          secretsOf.set(
            s.id,
            (list = signingSecrets(
              {
                url: s.url,
                secret: s.secret,
                previousSecret: s.previous_secret,
                previousSecretExpiresAt: s.previous_secret_expires_at,
              },
              settings.encryptionKey,
            )),
          );
        return list;
      };
      const outcomes = await Promise.all(
        deliveries.map(async (d) => {
          if (d.status === 'retrying') return { d, result: null };
          const s = subById.get(d.subscription_id)!;
          const result = await inFlight.run(() =>
            sendWebhook({
              url: s.url,
              webhookId: webhookIdOf(d.id),
              body: d.body,
              secrets: secrets(s),
              allowHosts: config.outboundAllowHosts,
              timeoutMs: settings.timeoutMs,
              fetch: deps.fetch,
            }),
          );
          return { d, result };
        }),
      );
      const firstDelay = settings.retryScheduleMs[0] ?? null;
      const attempted = outcomes.filter((o): o is { d: DeliveryRow; result: AttemptResult } => o.result !== null);
      if (attempted.length) {
        await executeLean(
          em,
          `update webhook_delivery w set
             attempts = w.attempts + 1, status = x.status, last_status_code = x.code, last_error = x.error, last_duration_ms = x.ms,
             last_attempt_at = now(), updated_at = now(),
             delivered_at = case when x.status = 'delivered' then now() else null end,
             next_attempt_at = case when x.status = 'retrying' then now() + x.delay * interval '1 millisecond' else null end
           from jsonb_to_recordset(?::jsonb) as x(id text, status text, code int, error text, ms int, delay double precision)
           where w.id = x.id and w.status = 'pending'`,
          [
            JSON.stringify(
              attempted.map(({ d, result: r }) => ({
                id: d.id,
                code: r.statusCode,
                error: r.error,
                ms: r.durationMs,
                delay: firstDelay,
                status: r.ok ? 'delivered' : r.gone || firstDelay === null ? 'failed' : 'retrying',
              })),
            ),
          ],
        );
      }
      // Subscription bookkeeping: at most one statement per subscription and kind of outcome, not one per delivery.
      const succeeded: string[] = [];
      for (const subId of new Set(attempted.map((o) => o.d.subscription_id))) {
        const results = attempted.filter((o) => o.d.subscription_id === subId).map((o) => o.result);
        const gone = results.find((r) => r.gone);
        const failed = results.find((r) => !r.ok && !r.gone);
        if (results.some((r) => r.ok)) succeeded.push(subId);
        if (gone) await recordOnSubscription(em, config, subId, gone, false);
        if (failed) await recordOnSubscription(em, config, subId, failed, firstDelay === null);
      }
      // Every subscription with a success of this batch in one statement.
      if (succeeded.length) await recordSuccesses(em, succeeded);
      const failures = new Map<string, unknown>();
      const retry = outcomes.filter(
        ({ result }) => result === null || (!result.ok && !result.gone && firstDelay !== null),
      );
      await mapLimited(retry, 8, async ({ d }) => {
        try {
          await deps.retries.startRetry({
            workspaceId: d.workspace_id,
            deliveryId: d.id,
            delaysMs: settings.retryScheduleMs,
            jitter: settings.retryJitter,
          });
        } catch (err) {
          const event = events.find((e) => e.eventId === d.event_id)!;
          failures.set(event.id, err);
          log.warn(
            { deliveryId: d.id, err: (err as Error).message },
            'webhook retry workflow could not be started; the outbox retries the event',
          );
        }
      });
      return failures;
    },
  };
}
