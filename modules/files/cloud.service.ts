import type { AppConfig } from '../../platform/config';
import type { Ctx } from '../../platform/context';
import { DomainError, validation } from '../../platform/errors';
import { safeFetch } from '../../platform/net/safe-fetch';
import { emit } from '../../platform/outbox/emit';
import { createRecord } from '../../platform/shared/records';
import { StoredFile } from './file.entity';
import { assertRefs } from '../timeline';
import { assertFolder, LINK_ENTITY_TYPES, linkFile, serializeFile, type LinkEntityType } from './files.service';
import { sanitizeFilename } from './sniff';
import type { CloudAccountView, CloudCreateView, FileView } from './files.schemas';
import {
  CLOUD_PROVIDERS,
  type BrowseQuery,
  type CloudItem,
  type CloudProviderId,
  type CloudStorageProvider,
  type CreateKind,
} from '../../platform/ports/cloud-provider.port';
import { CLOUD_ENV_VARS, type OAuthProviderEnv } from './cloud-settings';
import { GoogleDriveProvider } from '../../adapters/storage/cloud/google-drive';
import { OneDriveProvider } from '../../adapters/storage/cloud/onedrive';

export const PROVIDER_LABELS: Record<CloudProviderId, string> = {
  onedrive: 'Microsoft OneDrive',
  google_drive: 'Google Drive',
};

function settingsOf(config: AppConfig, id: CloudProviderId): OAuthProviderEnv {
  return id === 'onedrive' ? config.files.cloud.onedrive : config.files.cloud.googleDrive;
}

/** Configured for the deployment: client id, secret and the account's refresh token are all set. */
export function isConfigured(config: AppConfig, id: CloudProviderId): boolean {
  const s = settingsOf(config, id);
  return Boolean(s.clientId && s.clientSecret && s.refreshToken);
}

/** Configured and offered to this workspace (the optional *_WORKSPACE_IDS allow-list). */
export function isConnected(config: AppConfig, id: CloudProviderId, workspaceId: string): boolean {
  const s = settingsOf(config, id);
  return isConfigured(config, id) && (!s.workspaceIds.length || s.workspaceIds.includes(workspaceId));
}

export function notConfigured(ids: readonly CloudProviderId[]): DomainError {
  const what = ids.map((id) => `${PROVIDER_LABELS[id]} (${CLOUD_ENV_VARS[id].join(', ')})`).join(' or ');
  return new DomainError('not_configured', `cloud storage is not configured: set ${what}`, {
    providers: ids.map((id) => ({ provider: id, env: CLOUD_ENV_VARS[id] })),
  });
}

const built = new WeakMap<AppConfig, Map<CloudProviderId, CloudStorageProvider>>();

/** The provider's adapter for this workspace, or 503 not_configured naming its variables. */
export function providerFor(config: AppConfig, id: CloudProviderId, workspaceId: string): CloudStorageProvider {
  if (!isConfigured(config, id)) throw notConfigured([id]);
  const env = id === 'onedrive' ? 'ONEDRIVE_WORKSPACE_IDS' : 'GOOGLE_DRIVE_WORKSPACE_IDS';
  if (!isConnected(config, id, workspaceId))
    throw new DomainError(
      'not_configured',
      `${PROVIDER_LABELS[id]} is not offered to this workspace: add its id to ${env}`,
    );
  let cache = built.get(config);
  if (!cache) built.set(config, (cache = new Map()));
  let provider = cache.get(id);
  if (!provider) {
    const allow = config.outboundAllowHosts;
    provider =
      id === 'onedrive'
        ? new OneDriveProvider(config.files.cloud.onedrive, safeFetch, allow)
        : new GoogleDriveProvider(config.files.cloud.googleDrive, safeFetch, allow);
    cache.set(id, provider);
  }
  return provider;
}

/** The provider named, or the only one connected to the workspace; none → 503 naming what to set. */
function chooseProvider(config: AppConfig, workspaceId: string, requested?: CloudProviderId): CloudStorageProvider {
  if (requested) return providerFor(config, requested, workspaceId);
  const connected = CLOUD_PROVIDERS.filter((id) => isConnected(config, id, workspaceId));
  if (!connected.length) throw notConfigured(CLOUD_PROVIDERS);
  if (connected.length > 1)
    throw validation(`provider: more than one cloud storage is connected; name one of ${connected.join(', ')}`, [
      { path: 'provider', error: 'is required' },
    ]);
  return providerFor(config, connected[0]!, workspaceId);
}

/** Connected cloud accounts of the workspace (never their credentials); an unreachable one is listed with its error. */
export async function listAccounts(ctx: Ctx, config: AppConfig): Promise<CloudAccountView[]> {
  const out: CloudAccountView[] = [];
  for (const id of CLOUD_PROVIDERS.filter((p) => isConnected(config, p, ctx.actor.workspaceId))) {
    try {
      out.push({
        ...(await providerFor(config, id, ctx.actor.workspaceId).account()),
        label: PROVIDER_LABELS[id],
        status: 'connected',
      });
    } catch (err) {
      out.push({
        provider: id,
        label: PROVIDER_LABELS[id],
        accountId: null,
        displayName: null,
        email: null,
        status: 'error',
        error: err instanceof DomainError ? err.message : 'the provider could not be reached',
      });
    }
  }
  return out;
}

export async function browse(
  ctx: Ctx,
  config: AppConfig,
  query: BrowseQuery & { provider?: CloudProviderId },
): Promise<CloudItem[]> {
  return chooseProvider(config, ctx.actor.workspaceId, query.provider).browse(query);
}

export interface CloudLinkInput {
  provider?: CloudProviderId;
  itemId: string;
  driveId?: string;
  folderId?: string | null;
  entityType?: LinkEntityType;
  entityId?: string;
}

/** Records a cloud item as a file of the workspace (source `cloud`), optionally linked to a record. */
async function recordCloudFile(
  ctx: Ctx,
  item: CloudItem,
  input: { folderId?: string | null; entityType?: LinkEntityType; entityId?: string },
): Promise<FileView> {
  if (item.kind !== 'file')
    throw validation(`itemId: "${item.name}" is a ${item.kind}; link files`, [
      { path: 'itemId', error: `is a ${item.kind}` },
    ]);
  await assertFolder(ctx, 'folderId', input.folderId);
  // Checked before anything is recorded: a bad record id must not leave an unlinked file behind.
  if (input.entityType && input.entityId)
    await assertRefs(ctx, [{ field: 'entityId', kind: LINK_ENTITY_TYPES[input.entityType], id: input.entityId }]);
  const file = createRecord(ctx, StoredFile, {
    name: sanitizeFilename(item.name),
    contentType: item.mimeType ?? 'application/octet-stream',
    size: item.size ?? 0,
    sha256: null,
    folderId: input.folderId ?? null,
    source: 'cloud',
    storage: null,
    storageKey: null,
    uploadedBy: ctx.actor.userId,
    cloud: {
      provider: item.provider,
      itemId: item.id,
      driveId: item.driveId,
      webUrl: item.webUrl,
      path: item.path ?? null,
      checkedAt: new Date().toISOString(),
      missing: false,
    },
  });
  emit(ctx, {
    type: 'file_uploaded',
    entityType: 'file',
    entityId: file._id,
    payload: {
      file: {
        _id: file._id,
        name: file.name,
        contentType: file.contentType,
        size: file.size,
        source: 'cloud',
        provider: item.provider,
      },
    },
  });
  await ctx.em.flush();
  if (input.entityType && input.entityId)
    return linkFile(ctx, file._id, { entityType: input.entityType, entityId: input.entityId });
  return serializeFile(file);
}

export async function linkCloudItem(ctx: Ctx, config: AppConfig, input: CloudLinkInput): Promise<FileView> {
  const provider = chooseProvider(config, ctx.actor.workspaceId, input.provider);
  const item = await provider.item(input.itemId, input.driveId);
  if (!item)
    throw validation(`itemId: no item ${input.itemId} at ${PROVIDER_LABELS[provider.id]}`, [
      { path: 'itemId', error: 'not found at the provider' },
    ]);
  return recordCloudFile(ctx, item, input);
}

export interface CloudCreateInput extends Omit<CloudLinkInput, 'itemId'> {
  name: string;
  kind: CreateKind;
  parentId?: string;
}

/** Creates a folder or an empty document at the provider; a document is also recorded (and linked) as a file. */
export async function createCloudItem(ctx: Ctx, config: AppConfig, input: CloudCreateInput): Promise<CloudCreateView> {
  const provider = chooseProvider(config, ctx.actor.workspaceId, input.provider);
  const item = await provider.create({
    name: input.name,
    kind: input.kind,
    parentId: input.parentId,
    driveId: input.driveId,
  });
  const file = item.kind === 'file' ? await recordCloudFile(ctx, item, input) : null;
  return { item, file };
}
