import type { AppConfig } from '../../platform/config';
import { LocalFileStorage } from '../../adapters/storage/local-storage';
import { S3FileStorage } from '../../adapters/storage/s3-storage';
import { UrlSigner } from './signed-token';
import type { FileStorage } from './storage';

const built = new WeakMap<AppConfig, FileStorage>();

/**
 * The configured storage adapter, built once per config. A misconfigured S3 driver throws
 * `not_configured` (503 naming the variables) on use, not at start-up.
 */
export function fileStorageFor(config: AppConfig): FileStorage {
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
export function localStorageFor(config: AppConfig): LocalFileStorage | null {
  if (config.files.driver !== 'local') return null;
  return fileStorageFor(config) as LocalFileStorage;
}
