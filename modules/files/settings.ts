import path from 'node:path';
import { cloudEnv, type CloudEnv } from './cloud-settings';
import type { S3Env } from '../../platform/ports/storage.port';

export type { S3Env } from '../../platform/ports/storage.port';

/** File storage settings from the environment (read once by domain/config.ts; listed in the README). */
export interface FileEnv {
  /** FILE_STORAGE: `local` (default, a folder on disk) or `s3` (any S3-compatible service). */
  driver: 'local' | 's3';
  /** FILE_STORAGE_DIR: folder of the local driver; default `<data folder>/files` (npm start/test set it). */
  localDir: string;
  /** FILE_MAX_BYTES: largest accepted upload; default 25 MiB. One byte more is 413. */
  maxBytes: number;
  /** FILE_URL_TTL_SECONDS: lifetime of signed download and upload URLs; default 900 (15 minutes). */
  urlTtlSeconds: number;
  /** FILE_URL_SECRET: HMAC key of local signed URLs; falls back to CRM_SECRETS_KEY, else a per-process key. */
  urlSecret?: string;
  s3: S3Env;
  /** Cloud storage providers (ONEDRIVE_*, GOOGLE_DRIVE_*): domain/files/cloud/cloud-settings.ts. */
  cloud: CloudEnv;
}

export const DEFAULT_FILE_MAX_BYTES = 25 * 1024 * 1024;

const opt = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = opt(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

export function fileEnv(env: NodeJS.ProcessEnv): FileEnv {
  const driver = (opt(env, 'FILE_STORAGE') ?? 'local').toLowerCase();
  if (driver !== 'local' && driver !== 's3')
    throw new Error(`FILE_STORAGE must be local or s3, got "${env.FILE_STORAGE}"`);
  const repoRoot = path.resolve(__dirname, '..', '..');
  const dataDir = opt(env, 'CRM_DATA_DIR')
    ? path.resolve(repoRoot, opt(env, 'CRM_DATA_DIR')!)
    : path.join(repoRoot, '.data');
  const forcePathStyle = (opt(env, 'S3_FORCE_PATH_STYLE') ?? 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(forcePathStyle))
    throw new Error(`S3_FORCE_PATH_STYLE must be true or false, got "${env.S3_FORCE_PATH_STYLE}"`);
  return {
    driver,
    localDir: path.resolve(repoRoot, opt(env, 'FILE_STORAGE_DIR') ?? path.join(dataDir, 'files')),
    maxBytes: positiveInt(env, 'FILE_MAX_BYTES', DEFAULT_FILE_MAX_BYTES),
    urlTtlSeconds: Math.min(positiveInt(env, 'FILE_URL_TTL_SECONDS', 900), 7 * 24 * 3600),
    urlSecret: opt(env, 'FILE_URL_SECRET') ?? opt(env, 'CRM_SECRETS_KEY'),
    s3: {
      endpoint: opt(env, 'S3_ENDPOINT'),
      bucket: opt(env, 'S3_BUCKET'),
      region: opt(env, 'S3_REGION') ?? 'us-east-1',
      accessKeyId: opt(env, 'S3_ACCESS_KEY_ID'),
      secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
      forcePathStyle: forcePathStyle === 'true' || forcePathStyle === '1',
      keyPrefix: opt(env, 'S3_KEY_PREFIX') ?? '',
    },
    cloud: cloudEnv(env),
  };
}

// This module's section of AppConfig (platform/config.ts), loaded by its `settings` (files.module.ts).
declare module '../../platform/config' {
  interface ModuleSettings {
    /** File storage (FILE_STORAGE, FILE_*, S3_*). */
    files: FileEnv;
  }
}
