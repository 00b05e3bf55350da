// An outbox dispatcher that runs only the webhook subscriber, for the files that check deliveries.
import type { AppConfig } from '../../platform/config';
import { createLogger } from '../../platform/logger';
import { createOutboxDispatcher, type OutboxDispatcher } from '../../platform/outbox/dispatcher';
import { createWebhookSubscriber, type WebhookSubscriberDeps } from '../../modules/webhooks/subscriber';
import type { TestApp } from './app';

/**
 * For the given workspaces (not started: call `start()` or `drainOnce()`). A failed first attempt asks
 * `retries` for a retry (by default a port that only answers 'started'); `config` replaces the app's.
 */
export function webhookDispatcher(
  app: TestApp,
  workspaceIds: string[],
  options: {
    config?: AppConfig;
    retries?: WebhookSubscriberDeps['retries'];
    pollIntervalMs?: number;
    backoffMs?: number;
  } = {},
): OutboxDispatcher {
  const { config = app.config, retries = { startRetry: async () => 'started' as const }, backoffMs = 0 } = options;
  const log = createLogger('silent', 'webhooks-test');
  return createOutboxDispatcher({
    pgConnectionString: config.databaseUrl,
    workspaceIds,
    log,
    backoff: () => backoffMs,
    pollIntervalMs: options.pollIntervalMs,
    subscribers: [createWebhookSubscriber({ orm: app.runtime.deps.orm, config, log, retries })],
  });
}
