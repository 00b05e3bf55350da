import fs from 'node:fs';
import path from 'node:path';
import {
  LOCAL_DOWNLOAD_PATH,
  LOCAL_UPLOAD_PATH,
  type LocalObject,
  type LocalUploadTarget,
  type SignedUpload,
  type SignedUrl,
  type UrlSigning,
} from '../../platform/ports/storage.port';

const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*(\/[A-Za-z0-9][A-Za-z0-9_.-]*)*$/;

/**
 * Objects as files under `<dir>/objects/<key>`, written by rename from `<dir>/.staging`, so a
 * reader never sees half a file. Download and upload URLs point at the API with an HMAC token.
 */
export class LocalFileStorage implements LocalUploadTarget {
  readonly driver = 'local' as const;

  constructor(
    private readonly dir: string,
    private readonly publicBaseUrl: string,
    readonly signer: UrlSigning,
  ) {}

  pathOf(key: string): string {
    if (!KEY_RE.test(key) || key.includes('..')) throw new Error(`invalid storage key "${key}"`);
    return path.join(this.dir, 'objects', key);
  }

  stagingDir(): string {
    const dir = path.join(this.dir, '.staging');
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  async put(key: string, source: { path: string }): Promise<void> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    try {
      await fs.promises.rename(source.path, target);
    } catch (err) {
      // Staged on another device (should not happen with stagingDir): copy to a sibling, then rename.
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      const tmp = `${target}.partial-${process.pid}`;
      await fs.promises.copyFile(source.path, tmp);
      await fs.promises.rename(tmp, target);
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }

  async stat(key: string): Promise<{ size: number } | null> {
    try {
      const st = await fs.promises.stat(this.pathOf(key));
      return st.isFile() ? { size: st.size } : null;
    } catch {
      return null;
    }
  }

  async open(key: string): Promise<LocalObject | null> {
    const st = await this.stat(key);
    if (!st) return null;
    return { stream: fs.createReadStream(this.pathOf(key)), size: st.size };
  }

  async downloadUrl(
    key: string,
    options: { filename: string; contentType: string; ttlSeconds: number },
  ): Promise<SignedUrl> {
    this.pathOf(key);
    const exp = Math.floor(Date.now() / 1000) + options.ttlSeconds;
    const token = this.signer.sign({ op: 'get', key, exp, name: options.filename, type: options.contentType });
    return { url: `${this.publicBaseUrl}${LOCAL_DOWNLOAD_PATH}/${token}`, expiresAt: new Date(exp * 1000) };
  }

  async uploadUrl(key: string, options: { contentType: string; ttlSeconds: number }): Promise<SignedUpload> {
    this.pathOf(key);
    const exp = Math.floor(Date.now() / 1000) + options.ttlSeconds;
    const token = this.signer.sign({ op: 'put', key, exp, type: options.contentType });
    return {
      url: `${this.publicBaseUrl}${LOCAL_UPLOAD_PATH}/${token}`,
      method: 'PUT',
      headers: { 'Content-Type': options.contentType },
      expiresAt: new Date(exp * 1000),
    };
  }
}
