// First run builds gofakes3 with go install (seconds with a warm module cache, longer cold).
jest.setTimeout(300_000);
import { createHash } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startS3TestServer, type RunningS3 } from '../../../infra/s3-test-server';
import { fileStorageFor } from '../storage-factory';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { PNG_BYTES, uploadFile } from '../../../test/support/files';
import { withTenantOfApp } from '../../../test/support/suites';
import { expectCreated } from '../../../test/support/expect';

const LIMIT = 2048;
let s3: RunningS3;
let app: TestApp;
let t: Tenant;
let client: S3Client;

/** The app's settings: the local S3 server (once started). */
const s3Env = (): Record<string, string> => ({
  FILE_STORAGE: 's3',
  S3_ENDPOINT: s3.endpoint,
  S3_BUCKET: s3.bucket,
  S3_REGION: 'eu-north-1',
  S3_ACCESS_KEY_ID: 'test-key',
  S3_SECRET_ACCESS_KEY: 'test-secret',
  S3_FORCE_PATH_STYLE: 'true',
  S3_KEY_PREFIX: 'crm/',
  FILE_MAX_BYTES: String(LIMIT),
});

beforeAll(async () => {
  s3 = await startS3TestServer('crm-files');
  app = await startTestApp(s3Env());
  t = await app.tenant();
  client = new S3Client({
    region: 'eu-north-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'test-key', secretAccessKey: 'test-secret' },
  });
});
afterAll(async () => {
  client?.destroy();
  await app?.close();
  await s3?.stop();
});

const keys = async (): Promise<string[]> =>
  ((await client.send(new ListObjectsV2Command({ Bucket: s3.bucket }))).Contents ?? []).map((o) => o.Key!).sort();

describe('S3-compatible storage (gofakes3)', () => {
  it('stores an upload as an object, serves it through a presigned URL that expires, deletes it with the file', async () => {
    const data = new Uint8Array([...PNG_BYTES, ...Array.from({ length: LIMIT - PNG_BYTES.length }, (_, i) => i % 256)]);
    const made = await uploadFile(t.http, data, { filename: 'chart.png' });
    expectCreated(made, {
      storage: 's3',
      size: LIMIT,
      contentType: 'image/png',
      sha256: createHash('sha256').update(data).digest('hex'),
    });
    const key = `crm/${t.workspaceId}/${made.body.data._id}`;
    expect(await keys()).toContain(key);

    const got = (await t.http.get(`/api/v1/files/${made.body.data._id}`)).body.data;
    const url = new URL(got.downloadUrl);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.pathname).toBe(`/${s3.bucket}/${key}`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(url.searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="chart.png"; filename*=UTF-8''chart.png`,
    );
    const dl = await fetch(got.downloadUrl);
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer())).toEqual(Buffer.from(data));

    expect((await t.http.delete(`/api/v1/files/${made.body.data._id}`)).status).toBe(200);
    expect(await keys()).not.toContain(key);
    expect(await fileStorageFor(app.config).stat(`${t.workspaceId}/${made.body.data._id}`)).toBeNull();
  });

  it('presigns extension capture uploads that the store accepts', async () => {
    const res = await t.http.post('/api/v1/extension/captures/presign', { captures: [{ contentType: 'image/png' }] });
    expect(res.status).toBe(200);
    const [upload] = res.body.data.uploads;
    const url = new URL(upload.uploadUrl);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toContain('content-type');
    const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: PNG_BYTES });
    expect(put.status).toBe(200);
    expect(await keys()).toContain(`crm/${upload.key}`);
  });

  it('one byte over the limit is 413 and uploads nothing', async () => {
    const before = await keys();
    const res = await uploadFile(t.http, new Uint8Array(LIMIT + 1), { filename: 'big.bin' });
    expect(res.status).toBe(413);
    expect(await keys()).toEqual(before);
    expect((await t.http.get('/api/v1/files?q=big.bin')).body.total).toBe(0);
  });

  it('an unreachable store answers 503 with Retry-After and records nothing', async () => {
    // The file's settings with an endpoint nothing listens on.
    await withTenantOfApp({ ...s3Env(), S3_ENDPOINT: 'http://127.0.0.1:9' }, async (tenant) => {
      const res = await uploadFile(tenant.http, 'hello');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBeTruthy();
      expect((await tenant.http.get('/api/v1/files')).body.total).toBe(0);
    });
  });

  it('S3 without its settings answers 503 not_configured naming the variables', async () => {
    const bare = { FILE_STORAGE: 's3', S3_BUCKET: '', S3_ACCESS_KEY_ID: '', S3_SECRET_ACCESS_KEY: '' };
    await withTenantOfApp(bare, async (tenant) => {
      const res = await uploadFile(tenant.http, 'hello');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        code: 'not_configured',
        error: expect.stringMatching(/S3_BUCKET.*S3_ACCESS_KEY_ID.*S3_SECRET_ACCESS_KEY/),
      });
      expect((await tenant.http.get('/api/v1/files')).status).toBe(200);
    });
  });
});
