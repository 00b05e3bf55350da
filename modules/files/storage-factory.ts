import type { Logger } from '../../platform/logger';
import { LocalFileStorage } from '../../adapters/storage/local-storage';
import { S3FileStorage } from '../../adapters/storage/s3-storage';
import { UrlSigner } from './signed-token';
import type { FileDeps } from './files.service';
import type { FileEnv } from './settings';
import type { FileStorage } from '../../platform/ports/storage.port';

/** What the storage adapters are built from: AppConfig's files section and public base URL. */
export interface StorageConfig {
  files: FileEnv;
  publicBaseUrl: string;
}

const built = new WeakMap<StorageConfig, FileStorage>();

/**
 * The configured storage adapter, built once per config. A misconfigured S3 driver throws
 * `not_configured` (503 naming the variables) on use, not at start-up.
 */
export function fileStorageFor(config: StorageConfig): FileStorage {
  let storage = built.get(config);
  if (!storage) {
    const files = config.files;
    storage =
      files.driver === 's3'
        ? new S3FileStorage(files.s3, files.localDir)
        : new LocalFileStorage(files.localDir, config.publicBaseUrl, new UrlSigner(files.urlSecret));
    built.set(config, storage);
  }
  return storage;
}

/** The local adapter (it serves its own signed URLs), or null when another driver is configured. */
export function localStorageFor(config: StorageConfig): LocalFileStorage | null {
  if (config.files.driver !== 'local') return null;
  return fileStorageFor(config) as LocalFileStorage;
}

/** The file services' deps from the API's (AppDeps: config, log): the files routes and the extension's captures. */
export function fileDeps(deps: { config: StorageConfig; log: Logger }): FileDeps {
  return {
    storage: fileStorageFor(deps.config),
    maxBytes: deps.config.files.maxBytes,
    urlTtlSeconds: deps.config.files.urlTtlSeconds,
    log: deps.log,
  };
}
