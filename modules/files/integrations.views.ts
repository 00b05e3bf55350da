import { z } from 'zod';
import { dateTimeView } from '../../platform/shared/views';
import { CLOUD_PROVIDERS } from '../../platform/ports/cloud-provider.port';

/** Response views of GET /integrations and POST /integrations/:provider/sync. */

export const integrationSyncView = z.object({
  status: z.enum(['ok', 'failed', 'never']),
  lastSyncAt: dateTimeView.nullable(),
  lastSuccessAt: dateTimeView.nullable(),
  lastFullSyncAt: dateTimeView.nullable(),
  lastError: z.string().nullable(),
  itemsChecked: z.number().int(),
  itemsMissing: z.number().int(),
});
export type IntegrationSyncView = z.infer<typeof integrationSyncView>;

export const integrationView = z.object({
  provider: z.enum([...CLOUD_PROVIDERS, 'smtp', 'sms_gateway', 'ai', 'file_storage']),
  label: z.string(),
  category: z.enum(['cloud_storage', 'email', 'sms', 'ai', 'file_storage']),
  configured: z.boolean().describe('the deployment has the variables set'),
  connected: z.boolean().describe('usable by this workspace'),
  syncable: z.boolean(),
  env: z.array(z.string()).describe('names of the variables that set it up (never values)'),
  sync: integrationSyncView.nullable().describe('cloud sync health (null: not syncable)'),
});
export type IntegrationView = z.infer<typeof integrationView>;

export const integrationSyncResultView = z.object({
  provider: z.enum(CLOUD_PROVIDERS),
  fullSync: z.boolean(),
  itemsChecked: z.number().int(),
  itemsUpdated: z.number().int(),
  itemsMissing: z.number().int(),
  sync: integrationSyncView,
});
export type IntegrationSyncResultView = z.infer<typeof integrationSyncResultView>;
