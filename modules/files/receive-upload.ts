import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import { DomainError, validation } from '../../platform/errors';
import { SNIFF_BYTES } from './sniff';

/** One received file, staged on disk, with what the checks need. */
export interface StagedUpload {
  path: string;
  size: number;
  sha256: string;
  /** The first bytes, for content sniffing. */
  head: Buffer;
  filename: string;
  /** Text fields of the form (first value of each name). */
  fields: Record<string, string>;
  /** Removes the staged file (idempotent); called on every failure path and after the store took it. */
  discard(): Promise<void>;
}

export interface IncomingUpload {
  headers: IncomingHttpHeaders;
  stream: Readable;
}

const MAX_FIELDS = 10;
const MAX_FIELD_BYTES = 2048;
// Past the limit the rest of the body is read and dropped so the client sees the 413, up to this much more.
const DRAIN_SLACK_BYTES = 8 * 1024 * 1024;

export const tooLarge = (maxBytes: number): DomainError =>
  new DomainError('too_large', `the file is larger than the ${maxBytes}-byte upload limit`, { maxBytes });

/**
 * Streams one multipart/form-data file (field `file`) to a staging file, counting, hashing and
 * keeping its first bytes. Over `maxBytes` (413), an aborted request or a malformed body leave
 * nothing behind: the staged file is removed before the promise rejects.
 */
export function receiveUpload(
  req: IncomingUpload,
  options: { maxBytes: number; stagingDir: string },
): Promise<StagedUpload> {
  const type = String(req.headers['content-type'] ?? '');
  if (!/^multipart\/form-data\b/i.test(type)) {
    return Promise.reject(
      validation('body: send the file as multipart/form-data with a part named "file"', [
        { path: 'body', error: 'multipart/form-data required' },
      ]),
    );
  }
  return new Promise<StagedUpload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        defParamCharset: 'utf8',
        limits: {
          files: 1,
          fileSize: options.maxBytes + 1,
          fields: MAX_FIELDS,
          fieldSize: MAX_FIELD_BYTES,
          parts: MAX_FIELDS + 1,
        },
      });
    } catch {
      reject(
        validation('body: malformed multipart/form-data (boundary missing)', [
          { path: 'body', error: 'malformed multipart' },
        ]),
      );
      return;
    }
    const stagedPath = path.join(options.stagingDir, `upload-${Date.now()}-${randomBytes(8).toString('hex')}.partial`);
    const fields: Record<string, string> = {};
    const hash = createHash('sha256');
    const headChunks: Buffer[] = [];
    let headBytes = 0;
    let size = 0;
    let filename = '';
    let sawFile = false;
    let writeDone: Promise<void> | undefined;
    let out: fs.WriteStream | undefined;
    let failure: DomainError | Error | undefined;
    let settled = false;
    let received = 0;

    const discard = async (): Promise<void> => {
      await fs.promises.rm(stagedPath, { force: true });
    };
    const fail = (err: DomainError | Error): void => {
      failure ??= err;
    };
    const finish = async (): Promise<void> => {
      if (settled) return;
      settled = true;
      req.stream.off('data', countBytes);
      try {
        if (writeDone) await writeDone.catch((err: Error) => fail(err));
      } finally {
        if (failure || !sawFile) await discard();
      }
      if (failure) return reject(failure);
      if (!sawFile)
        return reject(
          validation('file: a part named "file" with the file content is required', [
            { path: 'file', error: 'is required' },
          ]),
        );
      resolve({
        path: stagedPath,
        size,
        sha256: hash.digest('hex'),
        head: Buffer.concat(headChunks),
        filename,
        fields,
        discard,
      });
    };
    const abort = (err: DomainError | Error): void => {
      fail(err);
      req.stream.unpipe(parser);
      out?.destroy();
      void finish();
    };
    const countBytes = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > options.maxBytes + DRAIN_SLACK_BYTES) {
        abort(tooLarge(options.maxBytes));
        req.stream.destroy();
      }
    };

    parser.on('file', (name, file, info) => {
      if (name !== 'file' || sawFile) {
        file.resume();
        if (name !== 'file')
          fail(
            validation(`${name}: unexpected file part; send the file in a part named "file"`, [
              { path: name, error: 'unexpected file part' },
            ]),
          );
        return;
      }
      sawFile = true;
      filename = info.filename ?? '';
      const sink = fs.createWriteStream(stagedPath, { flags: 'wx' });
      out = sink;
      writeDone = new Promise<void>((res, rej) => {
        sink.once('close', () => res());
        sink.once('error', rej);
      });
      file.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
        if (headBytes < SNIFF_BYTES) {
          const part = chunk.subarray(0, SNIFF_BYTES - headBytes);
          headChunks.push(Buffer.from(part));
          headBytes += part.length;
        }
      });
      file.on('error', (err: Error) => {
        fail(
          validation(`file: malformed multipart/form-data (${err.message})`, [
            { path: 'file', error: 'malformed multipart' },
          ]),
        );
        sink.destroy();
      });
      // busboy signals the limit once the count reaches it: ours is one byte past the maximum.
      file.once('limit', () => {
        fail(tooLarge(options.maxBytes));
        file.unpipe(sink);
        sink.end();
        file.resume();
      });
      file.pipe(sink);
    });
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        return fail(
          validation(`${name}: at most ${MAX_FIELD_BYTES} bytes`, [
            { path: name, error: `at most ${MAX_FIELD_BYTES} bytes` },
          ]),
        );
      if (!(name in fields)) fields[name] = value;
    });
    parser.on('partsLimit', () =>
      fail(
        validation(`body: at most ${MAX_FIELDS} form fields and one file`, [{ path: 'body', error: 'too many parts' }]),
      ),
    );
    parser.on('filesLimit', () =>
      fail(validation('body: send exactly one file per request', [{ path: 'body', error: 'one file per request' }])),
    );
    parser.on('fieldsLimit', () =>
      fail(validation(`body: at most ${MAX_FIELDS} form fields`, [{ path: 'body', error: 'too many fields' }])),
    );
    parser.on('error', (err: Error) =>
      abort(
        validation(`body: malformed multipart/form-data (${err.message})`, [
          { path: 'body', error: 'malformed multipart' },
        ]),
      ),
    );
    parser.once('close', () => void finish());
    // A client that goes away mid-upload: nothing half-written remains.
    req.stream.once('aborted', () =>
      abort(new DomainError('validation', 'the upload was aborted before it completed')),
    );
    req.stream.once('error', (err: Error) => abort(err));
    req.stream.once('close', () => {
      if ((req.stream as Readable & { complete?: boolean }).complete === false)
        abort(new DomainError('validation', 'the upload was aborted before it completed'));
    });
    req.stream.on('data', countBytes);
    req.stream.pipe(parser);
  });
}
