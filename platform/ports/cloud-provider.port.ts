/** The cloud-drive provider port with its settings; adapters/storage/cloud/ implements it (OneDrive, Google Drive). */

/** Cloud storage providers a workspace can browse and link files from. */
export const CLOUD_PROVIDERS = ['onedrive', 'google_drive'] as const;
export type CloudProviderId = (typeof CLOUD_PROVIDERS)[number];

/** The connected account (never its credentials). */
export interface CloudAccount {
  provider: CloudProviderId;
  accountId: string;
  displayName: string | null;
  email: string | null;
}

export interface CloudItem {
  provider: CloudProviderId;
  id: string;
  driveId: string | null;
  parentId: string | null;
  name: string;
  kind: 'drive' | 'folder' | 'file';
  mimeType: string | null;
  size: number | null;
  modifiedAt: string | null;
  webUrl: string | null;
  /** Slash-separated folder path inside its drive (only with `withPath`). */
  path?: string | null;
}

export interface BrowseQuery {
  parentId?: string;
  driveId?: string;
  query?: string;
  recent?: boolean;
  roots?: boolean;
  withPath?: boolean;
  limit: number;
}

export type CreateKind = 'folder' | 'document' | 'spreadsheet' | 'presentation' | 'file';

/** The cloud storage port; each adapter talks to its provider's REST API through the guarded HTTP client. */
export interface CloudStorageProvider {
  readonly id: CloudProviderId;
  account(): Promise<CloudAccount>;
  browse(query: BrowseQuery): Promise<CloudItem[]>;
  item(id: string, driveId?: string | null): Promise<CloudItem | null>;
  create(input: { name: string; kind: CreateKind; parentId?: string; driveId?: string }): Promise<CloudItem>;
}

/** Cloud storage providers from the environment (domain/files/settings.ts reads them once). */
export interface CloudEnv {
  onedrive: OAuthProviderEnv & { tenant: string; graphUrl: string; loginUrl: string };
  googleDrive: OAuthProviderEnv & { tokenUrl: string; apiUrl: string };
}

/**
 * One deployment-level connection per provider: an OAuth client and the refresh token of the
 * account it acts as (obtained once with the provider's consent flow). `workspaceIds` limits which
 * workspaces see it (empty = every workspace of the deployment).
 */
export interface OAuthProviderEnv {
  clientId?: string;
  clientSecret?: string;
  refreshToken?: string;
  workspaceIds: string[];
}
