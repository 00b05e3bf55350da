/**
 * The files module's public surface: what code outside modules/files may import (dependency-cruiser
 * `module-public-surface`): the file services' deps (fileDeps) and the capture presign the extension's route uses,
 * and the settings loader loadConfig reads. Declaration files (`files.module.ts`, `files.resource.ts`,
 * `files.events.ts`) are read by the registries directly, the storage and cloud-drive ports (`storage.port.ts`,
 * `cloud-provider.port.ts`) by adapters/storage; tests may reach inside. Files imports nothing of the extension
 * module (the extension's captures build on file storage).
 */
export { presignCapturesBody, type PresignInput } from './captures.schemas';
export { presignCaptures, type CaptureUploads } from './captures.service';
export type { FileDeps } from './files.service';
export { fileEnv, type FileEnv } from './settings';
export { fileDeps, fileStorageFor, type StorageConfig } from './storage-factory';
