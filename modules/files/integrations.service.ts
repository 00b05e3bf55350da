import type { AppConfig } from '../../platform/config';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { createRecord } from '../../platform/shared/records';
import { IntegrationSync, StoredFile } from './file.entity';
import { CLOUD_PROVIDERS, type CloudProviderId } from '../../platform/ports/cloud-provider.port';
import type { IntegrationSyncResultView, IntegrationSyncView, IntegrationView } from './integrations.views';
import { CLOUD_ENV_VARS } from './cloud-settings';
import { PROVIDER_LABELS, isConfigured, isConnected, providerFor } from './cloud.service';

/** Providers configured by the deployment without a sync of their own (listed for status only). */
function serviceProviders(
  config: AppConfig,
): Pick<IntegrationView, 'provider' | 'label' | 'category' | 'configured' | 'env'>[] {
  return [
    {
      provider: 'smtp',
      label: 'Outgoing e-mail (SMTP)',
      category: 'email',
      configured: Boolean(config.mail.smtpUrl || config.mail.smtpHost),
      env: ['SMTP_URL', 'SMTP_HOST', 'MAIL_FROM'],
    },
    {
      provider: 'sms_gateway',
      label: 'SMS gateway',
      category: 'sms',
      configured: Boolean(config.sms.gatewayUrl),
      env: ['SMS_GATEWAY_URL', 'SMS_GATEWAY_TOKEN'],
    },
    {
      provider: 'ai',
      label: 'AI chat completions',
      category: 'ai',
      configured: Boolean(config.ai.baseUrl && config.ai.apiKey),
      env: ['AI_BASE_URL', 'AI_API_KEY', 'AI_MODEL'],
    },
    {
      provider: 'file_storage',
      label: config.files.driver === 's3' ? 'S3 file storage' : 'Local file storage',
      category: 'file_storage',
      configured:
        config.files.driver === 'local' ||
        Boolean(config.files.s3.bucket && config.files.s3.accessKeyId && config.files.s3.secretAccessKey),
      env:
        config.files.driver === 's3' ? ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] : ['FILE_STORAGE_DIR'],
    },
  ];
}

const syncView = (row: IntegrationSync | undefined): IntegrationSyncView =>
  row
    ? {
        status: row.status,
        lastSyncAt: row.lastSyncAt.toISOString(),
        lastSuccessAt: row.lastSuccessAt?.toISOString() ?? null,
        lastFullSyncAt: row.lastFullSyncAt?.toISOString() ?? null,
        lastError: row.lastError ?? null,
        itemsChecked: row.itemsChecked,
        itemsMissing: row.itemsMissing,
      }
    : {
        status: 'never',
        lastSyncAt: null,
        lastSuccessAt: null,
        lastFullSyncAt: null,
        lastError: null,
        itemsChecked: 0,
        itemsMissing: 0,
      };

/**
 * Every provider with whether it is set up for this workspace and its sync health; names of variables only, never
 * values.
 */
export async function listIntegrations(ctx: Ctx, config: AppConfig): Promise<IntegrationView[]> {
  const rows = new Map((await ctx.em.find(IntegrationSync, {})).map((r) => [r.provider, r]));
  const cloud = CLOUD_PROVIDERS.map((id): IntegrationView => ({
    provider: id,
    label: PROVIDER_LABELS[id],
    category: 'cloud_storage',
    configured: isConfigured(config, id),
    connected: isConnected(config, id, ctx.actor.workspaceId),
    syncable: true,
    env: [...CLOUD_ENV_VARS[id]],
    sync: syncView(rows.get(id)),
  }));
  const services = serviceProviders(config).map((s) => ({
    ...s,
    connected: s.configured,
    syncable: false,
    sync: null,
  }));
  return [...cloud, ...services];
}

const MAX_SYNC_ITEMS = 1000;
const signature = (f: StoredFile): string =>
  JSON.stringify([f.name, f.size, f.contentType, f.cloud?.webUrl, f.cloud?.path, f.cloud?.missing]);

/**
 * Re-reads linked cloud files at the provider: names, sizes, types and links are refreshed and
 * items the provider no longer has are marked missing. `fullSync` checks every file; otherwise
 * only files not checked since the last successful sync. The outcome is the provider's sync health.
 */
export async function syncIntegration(
  ctx: Ctx,
  config: AppConfig,
  provider: string,
  fullSync: boolean,
): Promise<IntegrationSyncResultView> {
  if (!(CLOUD_PROVIDERS as readonly string[]).includes(provider)) {
    if (serviceProviders(config).some((s) => s.provider === provider))
      throw new DomainError('invalid_state', `${provider} has nothing to sync`);
    throw notFound('integration');
  }
  const id = provider as CloudProviderId;
  const adapter = providerFor(config, id, ctx.actor.workspaceId);
  const existing = await ctx.em.findOne(IntegrationSync, { provider: id });
  const since = fullSync ? null : (existing?.lastSuccessAt ?? null);
  const files = (
    await ctx.em.find(StoredFile, { source: 'cloud' }, { orderBy: { _id: 'asc' }, limit: MAX_SYNC_ITEMS * 2 })
  )
    .filter(
      (f) =>
        f.cloud?.provider === id && (!since || !f.cloud.checkedAt || Date.parse(f.cloud.checkedAt) < since.getTime()),
    )
    .slice(0, MAX_SYNC_ITEMS);
  const now = new Date();
  const row =
    existing ??
    createRecord(ctx, IntegrationSync, {
      provider: id,
      status: 'ok',
      lastSyncAt: now,
      lastFullSyncAt: null,
      lastSuccessAt: null,
      lastError: null,
      itemsChecked: 0,
      itemsMissing: 0,
    });
  let checked = 0;
  let missing = 0;
  let updated = 0;
  try {
    for (const file of files) {
      const item = await adapter.item(file.cloud!.itemId, file.cloud!.driveId);
      checked++;
      const before = signature(file);
      if (!item) {
        missing++;
        file.cloud = { ...file.cloud!, missing: true, checkedAt: now.toISOString() };
      } else {
        file.name = item.name.slice(0, 255) || file.name;
        file.size = item.size ?? file.size;
        file.contentType = item.mimeType ?? file.contentType;
        file.cloud = {
          ...file.cloud!,
          webUrl: item.webUrl,
          path: item.path ?? file.cloud!.path ?? null,
          missing: false,
          checkedAt: now.toISOString(),
        };
      }
      if (signature(file) !== before) updated++;
    }
    Object.assign(row, {
      status: 'ok',
      lastSyncAt: now,
      lastSuccessAt: now,
      lastError: null,
      itemsChecked: checked,
      itemsMissing: missing,
      ...(fullSync ? { lastFullSyncAt: now } : {}),
    });
    emit(ctx, {
      type: 'integration_synced',
      entityType: 'integration',
      entityId: row._id,
      payload: { provider: id, fullSync, itemsChecked: checked, itemsMissing: missing },
    });
    await ctx.em.flush();
  } catch (err) {
    // Keep the failure as sync health; the files already re-read keep their refresh.
    Object.assign(row, {
      status: 'failed',
      lastSyncAt: now,
      lastError: (err instanceof DomainError ? err.message : 'the provider could not be reached').slice(0, 500),
      itemsChecked: checked,
      itemsMissing: missing,
    });
    await ctx.em.flush();
    throw err;
  }
  return {
    provider: id,
    fullSync,
    itemsChecked: checked,
    itemsUpdated: updated,
    itemsMissing: missing,
    sync: syncView(row),
  };
}
