/**
 * The webhooks module's public surface: what code outside modules/webhooks may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.kind.ts`, `*.messages.ts`,
 * `*.workflow.ts`) are read by the registries directly; tests and benches may reach inside.
 */
export { STANDARD_RETRY_SCHEDULE_MS, webhookEnv, type WebhookEnv } from './settings';
export type { WebhookRetryPort } from './ports';
export { createWebhookRetryPort } from './webhook-client';
