import type { CloudEnv } from '../../platform/ports/cloud-provider.port';

export type { CloudEnv, OAuthProviderEnv } from '../../platform/ports/cloud-provider.port';

export const CLOUD_ENV_VARS = {
  onedrive: ['ONEDRIVE_CLIENT_ID', 'ONEDRIVE_CLIENT_SECRET', 'ONEDRIVE_REFRESH_TOKEN'],
  google_drive: ['GOOGLE_DRIVE_CLIENT_ID', 'GOOGLE_DRIVE_CLIENT_SECRET', 'GOOGLE_DRIVE_REFRESH_TOKEN'],
} as const;

const opt = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;
const list = (env: NodeJS.ProcessEnv, name: string): string[] =>
  (opt(env, name) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const base = (env: NodeJS.ProcessEnv, name: string, fallback: string): string =>
  (opt(env, name) ?? fallback).replace(/\/+$/, '');

export function cloudEnv(env: NodeJS.ProcessEnv): CloudEnv {
  return {
    onedrive: {
      clientId: opt(env, 'ONEDRIVE_CLIENT_ID'),
      clientSecret: env.ONEDRIVE_CLIENT_SECRET || undefined,
      refreshToken: env.ONEDRIVE_REFRESH_TOKEN || undefined,
      workspaceIds: list(env, 'ONEDRIVE_WORKSPACE_IDS'),
      tenant: opt(env, 'ONEDRIVE_TENANT') ?? 'common',
      graphUrl: base(env, 'MS_GRAPH_URL', 'https://graph.microsoft.com/v1.0'),
      loginUrl: base(env, 'MS_LOGIN_URL', 'https://login.microsoftonline.com'),
    },
    googleDrive: {
      clientId: opt(env, 'GOOGLE_DRIVE_CLIENT_ID'),
      clientSecret: env.GOOGLE_DRIVE_CLIENT_SECRET || undefined,
      refreshToken: env.GOOGLE_DRIVE_REFRESH_TOKEN || undefined,
      workspaceIds: list(env, 'GOOGLE_DRIVE_WORKSPACE_IDS'),
      tokenUrl: base(env, 'GOOGLE_OAUTH_TOKEN_URL', 'https://oauth2.googleapis.com/token'),
      apiUrl: base(env, 'GOOGLE_DRIVE_API_URL', 'https://www.googleapis.com/drive/v3'),
    },
  };
}
