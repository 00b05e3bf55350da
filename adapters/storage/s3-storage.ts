import fs from 'node:fs';
import path from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { DomainError } from '../../platform/errors';
import { contentDisposition } from '../../platform/shared/content-disposition';
import type { FileStorage, S3Env, SignedUpload, SignedUrl } from '../../platform/ports/storage.port';

export const S3_REQUIRED_ENV = ['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const;

/** Any S3-compatible object store (AWS S3, MinIO, R2, …) through the AWS SDK v3. */
export class S3FileStorage implements FileStorage {
  readonly driver = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  /** `stagingRoot`: folder where uploads are staged before they are sent (`<FILE_STORAGE_DIR>/.staging`). */
  constructor(
    private readonly settings: S3Env,
    private readonly stagingRoot: string,
  ) {
    const missing = S3_REQUIRED_ENV.filter(
      (name) =>
        !{
          S3_BUCKET: settings.bucket,
          S3_ACCESS_KEY_ID: settings.accessKeyId,
          S3_SECRET_ACCESS_KEY: settings.secretAccessKey,
        }[name],
    );
    if (missing.length)
      throw new DomainError(
        'not_configured',
        `S3 file storage is not configured: set ${missing.join(', ')} (and S3_ENDPOINT for a non-AWS service)`,
      );
    this.bucket = settings.bucket!;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: { accessKeyId: settings.accessKeyId!, secretAccessKey: settings.secretAccessKey! },
      // Checksums only where the API requires them: S3-compatible servers differ in trailer support.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  }

  private objectKey(key: string): string {
    return this.settings.keyPrefix + key;
  }

  stagingDir(): string {
    const dir = path.join(this.stagingRoot, '.staging');
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  async put(key: string, source: { path: string; size: number; contentType: string }): Promise<void> {
    await this.call(() =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.objectKey(key),
          Body: fs.createReadStream(source.path),
          ContentLength: source.size,
          ContentType: source.contentType,
        }),
      ),
    );
  }

  async delete(key: string): Promise<void> {
    await this.call(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) })));
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.objectKey(key) }));
      return { size: Number(head.ContentLength ?? 0) };
    } catch (err) {
      if (
        err instanceof S3ServiceException &&
        (err.$metadata.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey')
      )
        return null;
      throw this.failed(err);
    }
  }

  async downloadUrl(
    key: string,
    options: { filename: string; contentType: string; ttlSeconds: number },
  ): Promise<SignedUrl> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ResponseContentDisposition: contentDisposition(options.filename),
      ResponseContentType: options.contentType,
    });
    const url = await getSignedUrl(this.client, command, { expiresIn: options.ttlSeconds });
    return { url, expiresAt: new Date(Date.now() + options.ttlSeconds * 1000) };
  }

  async uploadUrl(key: string, options: { contentType: string; ttlSeconds: number }): Promise<SignedUpload> {
    const command = new PutObjectCommand({
      Bucket: this.bucket,
      Key: this.objectKey(key),
      ContentType: options.contentType,
    });
    const url = await getSignedUrl(this.client, command, {
      expiresIn: options.ttlSeconds,
      signableHeaders: new Set(['content-type']),
    });
    return {
      url,
      method: 'PUT',
      headers: { 'Content-Type': options.contentType },
      expiresAt: new Date(Date.now() + options.ttlSeconds * 1000),
    };
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw this.failed(err);
    }
  }

  private failed(err: unknown): DomainError {
    const status = err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
    const name = err instanceof Error ? err.name : 'error';
    return new DomainError(
      'unavailable',
      `file storage is unavailable (S3 ${name}${status ? ` ${status}` : ''})`,
      undefined,
      { 'Retry-After': '5' },
    );
  }
}
