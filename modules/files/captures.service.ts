import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Ctx } from '../../platform/context';
import { DomainError, validation } from '../../platform/errors';
import { newId } from '../../platform/ids';
import type { FileDeps } from './files.service';
import type { LocalUploadTarget } from '../../platform/ports/storage.port';
import { tooLarge } from './receive-upload';
import { CAPTURE_TYPES, type PresignInput } from './captures.schemas';
import { sniffContentType } from './sniff';

/** The presigned capture uploads (the extension's captureUploadsView documents them). */
export interface CaptureUploads {
  uploads: {
    key: string;
    contentType: keyof typeof CAPTURE_TYPES;
    uploadUrl: string;
    method: 'PUT';
    headers: Record<string, string>;
    expiresAt: string;
    maxBytes: number;
  }[];
}

/**
 * Signed PUT URLs for extension captures, one object key each under `captures/<workspaceId>/`.
 * The store enforces the type (signed header); the local store also enforces FILE_MAX_BYTES.
 */
export async function presignCaptures(ctx: Ctx, deps: FileDeps, input: PresignInput): Promise<CaptureUploads> {
  input.captures.forEach((c, i) => {
    if (c.size !== undefined && c.size > deps.maxBytes)
      throw new DomainError('too_large', `captures.${i}.size: larger than the ${deps.maxBytes}-byte upload limit`, {
        maxBytes: deps.maxBytes,
      });
  });
  const uploads = [];
  for (const capture of input.captures) {
    const key = `captures/${ctx.actor.workspaceId}/${newId()}.${CAPTURE_TYPES[capture.contentType]}`;
    const signed = await deps.storage.uploadUrl(key, {
      contentType: capture.contentType,
      ttlSeconds: deps.urlTtlSeconds,
    });
    uploads.push({
      key,
      contentType: capture.contentType,
      uploadUrl: signed.url,
      method: signed.method,
      headers: signed.headers,
      expiresAt: signed.expiresAt.toISOString(),
      maxBytes: deps.maxBytes,
    });
  }
  return { uploads };
}

/**
 * Receives a PUT to a local signed upload URL: the token names the key and the type; the body
 * must be that type (declared and sniffed) and within the limit. Staged, then renamed into place.
 */
export async function receiveSignedUpload(
  storage: LocalUploadTarget,
  maxBytes: number,
  token: string,
  request: { contentType: string; stream: Readable },
): Promise<{ status: 200 | 403 | 410; body: Record<string, unknown> }> {
  const check = storage.signer.verify(token, 'put');
  if (!check.ok)
    return check.reason === 'expired'
      ? { status: 410, body: { error: 'this upload URL has expired; ask for a new one', code: 'expired' } }
      : { status: 403, body: { error: 'invalid upload URL', code: 'forbidden' } };
  const expected = check.payload.type ?? '';
  if (request.contentType.split(';')[0]!.trim().toLowerCase() !== expected) {
    throw validation(`Content-Type: must be ${expected} (the type the URL was signed for)`, [
      { path: 'Content-Type', error: `must be ${expected}` },
    ]);
  }
  const staged = path.join(storage.stagingDir(), `put-${Date.now()}-${randomBytes(8).toString('hex')}.partial`);
  try {
    const { size, head } = await streamToFile(request.stream, staged, maxBytes);
    if (!size) throw validation('body: the upload is empty', [{ path: 'body', error: 'is empty' }]);
    const actual = sniffContentType(head);
    if (actual !== expected)
      throw validation(`body: declared ${expected} but the content is ${actual}`, [
        { path: 'body', error: 'content does not match the type' },
      ]);
    await storage.put(check.payload.key, { path: staged });
    return { status: 200, body: { ok: true, key: check.payload.key, size } };
  } finally {
    await fs.promises.rm(staged, { force: true });
  }
}

function streamToFile(stream: Readable, file: string, maxBytes: number): Promise<{ size: number; head: Buffer }> {
  return new Promise((resolve, reject) => {
    const out = fs.createWriteStream(file, { flags: 'wx' });
    let size = 0;
    const head: Buffer[] = [];
    let failed: Error | undefined;
    const fail = (err: Error): void => {
      if (failed) return;
      failed = err;
      stream.unpipe(out);
      out.destroy();
      stream.resume();
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (head.length < 4) head.push(chunk.subarray(0, 4096));
      if (size > maxBytes) fail(tooLarge(maxBytes));
    });
    stream.once('aborted', () => fail(new DomainError('validation', 'the upload was aborted before it completed')));
    stream.once('error', (err: Error) => fail(err));
    out.once('error', (err: Error) => fail(err));
    out.once('close', () => (failed ? reject(failed) : resolve({ size, head: Buffer.concat(head).subarray(0, 4096) })));
    stream.pipe(out);
  });
}
