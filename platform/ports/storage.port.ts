import type { Readable } from 'node:stream';

// The file storage port with its settings (S3Env) and the local driver's URL signer; adapters/storage/ implements it.

/**
 * Local paths served by the API (files.router.ts) for the local driver's signed URLs (outside /api/v1: the token is
 * the credential).
 */
export const LOCAL_DOWNLOAD_PATH = '/api/files/download';
export const LOCAL_UPLOAD_PATH = '/api/files/upload';

/** A signed URL and when it stops working. */
export interface SignedUrl {
  url: string;
  expiresAt: Date;
}

export interface SignedUpload extends SignedUrl {
  method: 'PUT';
  /** Headers the client must send with the upload (the signature covers them). */
  headers: Record<string, string>;
}

/**
 * The file storage port: one object store behind every stored file and extension capture.
 * Keys are produced by the domain (`<workspaceId>/<fileId>`), never taken from input.
 */
export interface FileStorage {
  readonly driver: 'local' | 's3';
  /**
   * Stores a fully received, checked file (a staged temporary file) under `key`; atomic: readers see all of it or
   * nothing.
   */
  put(key: string, source: { path: string; size: number; contentType: string }): Promise<void>;
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
  /** Whether an object exists (size when it does). */
  stat(key: string): Promise<{ size: number } | null>;
  /** A GET URL that expires; the download is offered as `filename`. */
  downloadUrl(key: string, options: { filename: string; contentType: string; ttlSeconds: number }): Promise<SignedUrl>;
  /** A PUT URL that expires, for a client that uploads directly (extension captures). */
  uploadUrl(key: string, options: { contentType: string; ttlSeconds: number }): Promise<SignedUpload>;
  /**
   * Where uploads are staged before `put` (`<FILE_STORAGE_DIR>/.staging`: the same disk as the local store, so `put` is
   * a rename).
   */
  stagingDir(): string;
}

/** The bytes of a locally stored object (the local driver serves its own signed URLs). */
export interface LocalObject {
  stream: Readable;
  size: number;
}

/** What receiving a local signed upload needs from the local driver (adapters/storage/local-storage.ts). */
export interface LocalUploadTarget extends FileStorage {
  readonly signer: UrlSigning;
  /** A folder on the same file system as the objects (a staged upload is renamed into place). */
  stagingDir(): string;
  /** The local driver moves the staged file into place and needs neither its size nor its type. */
  put(key: string, source: { path: string }): Promise<void>;
}

/** S3-compatible storage settings (S3_*; read by settings.ts). */
export interface S3Env {
  endpoint?: string;
  bucket?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  /** S3_KEY_PREFIX: prepended to every object key (lets several deployments share a bucket). */
  keyPrefix: string;
}

export interface TokenPayload {
  /** `get` (download) or `put` (direct upload). */
  op: 'get' | 'put';
  key: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** Download name and type (get), or the type the upload must declare (put). */
  name?: string;
  type?: string;
}

export type TokenCheck = { ok: true; payload: TokenPayload } | { ok: false; reason: 'invalid' | 'expired' };

/** Signs and checks the local driver's URL tokens (signed-token.ts: UrlSigner). */
export interface UrlSigning {
  sign(payload: TokenPayload): string;
  verify(token: string, op: TokenPayload['op'], now?: Date): TokenCheck;
}
