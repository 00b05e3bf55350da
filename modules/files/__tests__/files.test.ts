import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { UrlSigner } from '../signed-token';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { PNG_BYTES, uploadFile } from '../../../test/support/files';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';

const LIMIT = 1000;
let app: TestApp;
let t: Tenant;
let dir: string;

beforeAll(async () => {
  // Inside the test stack's data folder (npm test sets FILE_STORAGE_DIR there).
  const base = process.env.FILE_STORAGE_DIR ?? os.tmpdir();
  fs.mkdirSync(base, { recursive: true });
  dir = fs.mkdtempSync(path.join(base, 'files-test-'));
  app = await startTestApp({ FILE_STORAGE: 'local', FILE_STORAGE_DIR: dir, FILE_MAX_BYTES: String(LIMIT) });
  t = await app.tenant();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));
const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? ascii(p) : p)));
const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
const filled = (n: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => 0x41 + (i % 26));
const stagingEntries = (): string[] =>
  fs.existsSync(path.join(dir, '.staging')) ? fs.readdirSync(path.join(dir, '.staging')) : [];
const objectPath = (workspaceId: string, id: string): string => path.join(dir, 'objects', workspaceId, id);
/** Signed URLs carry PUBLIC_BASE_URL; the test server listens on an ephemeral port. */
const local = (url: string): string => url.replace(app.config.publicBaseUrl, app.baseUrl);
const fileCount = async (tenant: Tenant = t): Promise<number> =>
  (await tenant.http.get('/api/v1/files?limit=1')).body.total as number;

describe('uploads', () => {
  it('accepts a file of exactly FILE_MAX_BYTES and refuses one byte more with 413, leaving nothing behind', async () => {
    const before = await fileCount();
    const atLimit = filled(LIMIT);
    const ok = await uploadFile(t.http, atLimit, { filename: 'limit.txt' });
    expectCreated(ok, {
      name: 'limit.txt',
      size: LIMIT,
      sha256: sha256(atLimit),
      source: 'upload',
      storage: 'local',
      folderId: null,
      links: [],
    });
    expect(fs.statSync(objectPath(t.workspaceId, ok.body.data._id)).size).toBe(LIMIT);

    const over = await uploadFile(t.http, filled(LIMIT + 1), { filename: 'over.txt' });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ code: 'too_large', error: expect.stringContaining(`${LIMIT}`) });
    expect(await fileCount()).toBe(before + 1);
    expect(stagingEntries()).toEqual([]);
  });

  it('sniffs the content type from the bytes and ignores the declared one', async () => {
    const cases: [string, Uint8Array, string][] = [
      ['png', PNG_BYTES, 'image/png'],
      ['jpeg', bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], 'JFIF'), 'image/jpeg'],
      ['gif', bytes('GIF89a', [1, 0, 1, 0]), 'image/gif'],
      ['webp', bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '), 'image/webp'],
      ['pdf', bytes('%PDF-1.7\n%\xe2\xe3'), 'application/pdf'],
      ['zip', bytes([0x50, 0x4b, 0x03, 0x04, 20, 0], 'readme.txt'), 'application/zip'],
      [
        'docx',
        bytes([0x50, 0x4b, 0x03, 0x04, 20, 0], '[Content_Types].xml', [0, 0], 'word/document.xml'),
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      ],
      [
        'xlsx',
        bytes([0x50, 0x4b, 0x03, 0x04, 20, 0], '[Content_Types].xml', [0, 0], 'xl/workbook.xml'),
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      ],
      ['gzip', bytes([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0]), 'application/gzip'],
      ['mp4', bytes([0, 0, 0, 0x18], 'ftypisom', [0, 0, 2, 0]), 'video/mp4'],
      ['csv', bytes('name,email\nAda,ada@example.test\nBob,bob@example.test\n'), 'text/csv'],
      ['text', bytes('Just a note.\nSecond line.'), 'text/plain'],
      ['binary', bytes([0, 1, 2, 3, 4, 5]), 'application/octet-stream'],
      ['html', bytes('<!DOCTYPE html><script>alert(1)</script>'), 'text/html'],
    ];
    for (const [label, data, expected] of cases) {
      // Every declaration claims HTML: the stored type comes from the bytes alone.
      const res = await uploadFile(t.http, data, { filename: `sample-${label}`, type: 'text/html' });
      expect([label, res.status, res.body.data?.contentType]).toEqual([label, 201, expected]);
    }
  });

  it('sanitises the file name', async () => {
    const cases: [string, string][] = [
      ['../../etc/passwd', 'passwd'],
      ['C:\\Users\\ann\\report.pdf', 'report.pdf'],
      ['in\u202evoice<1>.txt', 'invoice_1_.txt'],
      ['  spaced   name .txt ', 'spaced name .txt'],
      ['...hidden', 'hidden'],
      ['', 'file'],
      [`${'x'.repeat(300)}.pdf`, `${'x'.repeat(251)}.pdf`],
    ];
    for (const [raw, expected] of cases) {
      const res = await uploadFile(t.http, 'hello', {
        filename: raw === '' ? 'placeholder' : raw,
        fields: raw === '' ? { name: '   ' } : {},
      });
      expect([raw, res.status, res.body.data?.name]).toEqual([raw, 201, expected]);
    }
  });

  it('refuses what is not one multipart file (400, never 500)', async () => {
    const json = await t.http.post('/api/v1/files', { name: 'x' });
    expectError(json, 400, /multipart\/form-data/);
    const noFile = new FormData();
    noFile.append('folderId', '');
    const res = await fetch(`${app.baseUrl}/api/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}` },
      body: noFile,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/^file: /);
    const broken = await t.http.post('/api/v1/files', undefined, {
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      raw: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc',
    });
    expect(broken.status).toBe(400);
    const badFolder = await uploadFile(t.http, 'x', { fields: { folderId: 'nope' } });
    expectError(badFolder, 400, /^folderId: /);
    const missingFolder = await uploadFile(t.http, 'x', { fields: { folderId: '0123456789abcdef01234567' } });
    expect(missingFolder.status).toBe(400);
    expect(stagingEntries()).toEqual([]);
  });

  it('an upload aborted mid-stream leaves no staged bytes, object or record', async () => {
    const before = await fileCount();
    const objectsBefore = fs.existsSync(path.join(dir, 'objects', t.workspaceId))
      ? fs.readdirSync(path.join(dir, 'objects', t.workspaceId)).length
      : 0;
    const url = new URL(`${app.baseUrl}/api/v1/files`);
    const boundary = 'crmtestboundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    await new Promise<void>((resolve) => {
      const req = http.request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${t.apiKey}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': String(head.length + 900 + 100),
        },
      });
      req.on('error', () => resolve());
      req.write(head);
      req.write(Buffer.alloc(500, 0x61));
      // Let the server stage the first half, then vanish.
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 300);
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(stagingEntries()).toEqual([]);
    expect(await fileCount()).toBe(before);
    const objectsAfter = fs.existsSync(path.join(dir, 'objects', t.workspaceId))
      ? fs.readdirSync(path.join(dir, 'objects', t.workspaceId)).length
      : 0;
    expect(objectsAfter).toBe(objectsBefore);
  });
});

describe('reading, downloading and deleting', () => {
  it('gets a file with a signed download URL that serves the bytes; tampered is 403, expired is 410', async () => {
    const data = bytes('%PDF-1.4\nquote');
    const made = (await uploadFile(t.http, data, { filename: 'Quote Q1 æøå.pdf' })).body.data;
    const got = await t.http.get(`/api/v1/files/${made._id}`);
    expectOk(got, {
      _id: made._id,
      name: made.name,
      contentType: 'application/pdf',
      size: data.length,
      downloadUrl: expect.stringMatching(/\/api\/files\/download\//),
    });
    const expiresIn = Date.parse(got.body.data.downloadUrlExpiresAt) - Date.now();
    expect(expiresIn).toBeGreaterThan(800_000);
    expect(expiresIn).toBeLessThanOrEqual(900_000);

    // No API key: the signed URL is the credential.
    const dl = await fetch(local(got.body.data.downloadUrl));
    expect(dl.status).toBe(200);
    expect(Buffer.from(await dl.arrayBuffer())).toEqual(Buffer.from(data));
    expect(dl.headers.get('content-type')).toBe('application/pdf');
    expect(dl.headers.get('content-disposition')).toBe(
      `attachment; filename="Quote Q1 ___.pdf"; filename*=UTF-8''${encodeURIComponent('Quote Q1 æøå.pdf')}`,
    );
    expect(dl.headers.get('x-content-type-options')).toBe('nosniff');

    const token = String(got.body.data.downloadUrl).split('/').pop()!;
    const [body, mac] = token.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const otherKey = Buffer.from(
      JSON.stringify({ ...payload, key: `${payload.key.split('/')[0]}/0123456789abcdef01234567` }),
    ).toString('base64url');
    for (const bad of [
      `${body}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`,
      `${otherKey}.${mac}`,
      'garbage',
      `${body}`,
    ]) {
      const res = await fetch(`${app.baseUrl}/api/files/download/${bad}`);
      expect([bad, res.status]).toEqual([bad, 403]);
    }
    const signer = new UrlSigner(app.config.files.urlSecret);
    const expired = signer.sign({ ...payload, exp: Math.floor(Date.now() / 1000) - 1 });
    const old = await fetch(`${app.baseUrl}/api/files/download/${expired}`);
    expect(old.status).toBe(410);
    expect(await old.json()).toMatchObject({ code: 'expired' });
    // An upload token does not download.
    expect((await fetch(`${app.baseUrl}/api/files/download/${signer.sign({ ...payload, op: 'put' })}`)).status).toBe(
      403,
    );
  });

  it('active content is served as a download, never as a page of our origin', async () => {
    const made = (await uploadFile(t.http, '<html><script>alert(1)</script></html>', { filename: 'x.html' })).body.data;
    const url = (await t.http.get(`/api/v1/files/${made._id}`)).body.data.downloadUrl;
    const dl = await fetch(local(url));
    expect(dl.headers.get('content-type')).toBe('application/octet-stream');
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(dl.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('delete removes the record and the stored object; the old URL then answers 404', async () => {
    const made = (await uploadFile(t.http, PNG_BYTES, { filename: 'gone.png' })).body.data;
    const url = (await t.http.get(`/api/v1/files/${made._id}`)).body.data.downloadUrl;
    expect(fs.existsSync(objectPath(t.workspaceId, made._id))).toBe(true);
    expect(await t.http.delete(`/api/v1/files/${made._id}`)).toMatchObject({ status: 200, body: { ok: true } });
    expect(fs.existsSync(objectPath(t.workspaceId, made._id))).toBe(false);
    expect((await t.http.get(`/api/v1/files/${made._id}`)).status).toBe(404);
    expect((await t.http.delete(`/api/v1/files/${made._id}`)).status).toBe(404);
    expect((await fetch(local(url))).status).toBe(404);
  });

  it('lists with the spec envelope, filters by name and validates the query', async () => {
    const tenant = await app.tenant();
    for (const name of ['alpha.txt', 'beta.txt', 'alphabet.txt'])
      await uploadFile(tenant.http, 'x', { filename: name });
    const all = await tenant.http.get('/api/v1/files?limit=2');
    expect(all.body).toMatchObject({ page: 1, limit: 2, total: 3 });
    expect(all.body.data.map((f: { name: string }) => f.name)).toEqual(['alphabet.txt', 'beta.txt']);
    const q = await tenant.http.get('/api/v1/files?q=alpha');
    expect(q.body.data.map((f: { name: string }) => f.name).sort()).toEqual(['alpha.txt', 'alphabet.txt']);
    for (const bad of [
      'limit=101',
      'page=0',
      'folderId=x',
      'entityType=company',
      'entityType=ship&entityId=0123456789abcdef01234567',
      'source=ftp',
    ]) {
      const res = await tenant.http.get(`/api/v1/files?${bad}`);
      expect([bad, res.status]).toEqual([bad, 400]);
    }
  });
});

describe('folders', () => {
  it('creates folders, keeps sibling names unique, files go in, only empty folders are deleted', async () => {
    const tenant = await app.tenant();
    const docs = await tenant.http.post('/api/v1/folders', { name: 'Contracts' });
    expectCreated(docs, { name: 'Contracts', parentId: null, fileCount: 0, folderCount: 0 });
    expect((await tenant.http.post('/api/v1/folders', { name: 'contracts' })).status).toBe(409);
    const sub = await tenant.http.post('/api/v1/folders', { name: 'Contracts', parentId: docs.body.data._id });
    expect(sub.status).toBe(201);
    const badBodies: [Record<string, unknown>, RegExp][] = [
      [{}, /^body[.:] ?name: /],
      [{ name: '' }, /^body[.:] ?name: /],
      [{ name: 'x'.repeat(256) }, /^body[.:] ?name: /],
      [{ name: 'x', parentId: 'nope' }, /^body[.:] ?parentId: /],
      [{ name: 'x', parentId: '0123456789abcdef01234567' }, /^parentId: no folder/],
    ];
    for (const [body, error] of badBodies) {
      const res = await tenant.http.post('/api/v1/folders', body);
      expect([body, res.status]).toEqual([body, 400]);
      expect(res.body.error).toMatch(error);
    }
    const inside = await uploadFile(tenant.http, 'minutes', {
      filename: 'minutes.txt',
      fields: { folderId: docs.body.data._id },
    });
    expect(inside.body.data.folderId).toBe(docs.body.data._id);
    await uploadFile(tenant.http, 'loose', { filename: 'loose.txt' });

    const listed = await tenant.http.get('/api/v1/folders?parentId=root');
    expect(listed.body).toMatchObject({ page: 1, limit: 20, total: 1 });
    expect(listed.body.data[0]).toMatchObject({ _id: docs.body.data._id, fileCount: 1, folderCount: 1 });
    expect(
      (await tenant.http.get(`/api/v1/folders?parentId=${docs.body.data._id}`)).body.data.map(
        (f: { _id: string }) => f._id,
      ),
    ).toEqual([sub.body.data._id]);
    expect(
      (await tenant.http.get(`/api/v1/files?folderId=${docs.body.data._id}`)).body.data.map(
        (f: { name: string }) => f.name,
      ),
    ).toEqual(['minutes.txt']);
    expect(
      (await tenant.http.get('/api/v1/files?folderId=root')).body.data.map((f: { name: string }) => f.name),
    ).toEqual(['loose.txt']);

    const blocked = await tenant.http.delete(`/api/v1/folders/${docs.body.data._id}`);
    expectError(blocked, 409, /not empty/);
    expect((await tenant.http.delete(`/api/v1/folders/${sub.body.data._id}`)).status).toBe(200);
    await tenant.http.delete(`/api/v1/files/${inside.body.data._id}`);
    expect((await tenant.http.delete(`/api/v1/folders/${docs.body.data._id}`)).body).toEqual({ ok: true });
    expect((await tenant.http.get('/api/v1/folders')).body.total).toBe(0);
  });
});

describe('links and timelines', () => {
  it('links a file to records of every kind, shows it on their feeds and filters the list by record', async () => {
    const tenant = await app.tenant();
    const file = (await uploadFile(tenant.http, PNG_BYTES, { filename: 'logo.png' })).body.data;
    const company = (await tenant.http.post('/api/v1/companies', { name: 'Acme' })).body.data._id;
    const deal = (await tenant.http.post('/api/v1/deals', { title: 'Big deal', value: 10 })).body.data._id;
    const project = (await tenant.http.post('/api/v1/projects', { title: 'Rollout' })).body.data._id;
    const res = await tenant.http.post(`/api/v1/files/${file._id}/link`, { entityType: 'company', entityId: company });
    expect(res.status).toBe(200);
    expect(res.body.data.links).toEqual([{ entityType: 'company', entityId: company, linkedAt: expect.any(String) }]);
    expect(
      (await tenant.http.post(`/api/v1/files/${file._id}/link`, { entityType: 'company', entityId: company })).status,
    ).toBe(409);
    expect(
      (await tenant.http.post(`/api/v1/files/${file._id}/link`, { entityType: 'deal', entityId: deal })).status,
    ).toBe(200);
    expect(
      (await tenant.http.post(`/api/v1/files/${file._id}/link`, { entityType: 'project', entityId: project })).status,
    ).toBe(200);

    const feed = await tenant.http.get(`/api/v1/companies/${company}/activity-feed`);
    expect(feed.body.data[0]).toMatchObject({
      type: 'file_linked',
      system: true,
      entityType: 'company',
      entityId: company,
      metadata: { fileId: file._id, name: 'logo.png', contentType: 'image/png' },
    });
    expect((await tenant.http.get(`/api/v1/deals/${deal}/activity-feed`)).body.data[0]).toMatchObject({
      type: 'file_linked',
      metadata: { fileId: file._id },
    });

    const byRecord = await tenant.http.get(`/api/v1/files?entityType=deal&entityId=${deal}`);
    expect(byRecord.body).toMatchObject({ total: 1, data: [{ _id: file._id }] });
    expect((await tenant.http.get(`/api/v1/files?entityType=person&entityId=${deal}`)).body.total).toBe(0);

    const unlinked = await tenant.http.delete(`/api/v1/files/${file._id}/link`);
    expect(unlinked.status).toBe(400);
    const un = await tenant.http.request('DELETE', `/api/v1/files/${file._id}/link`, {
      entityType: 'company',
      entityId: company,
    });
    expect(un.status).toBe(200);
    expect(un.body.data.links.map((l: { entityType: string }) => l.entityType).sort()).toEqual(['deal', 'project']);
    expect((await tenant.http.get(`/api/v1/companies/${company}/activity-feed`)).body.data[0]).toMatchObject({
      type: 'file_unlinked',
      metadata: { fileId: file._id },
    });
    expect(
      (
        await tenant.http.request('DELETE', `/api/v1/files/${file._id}/link`, {
          entityType: 'company',
          entityId: company,
        })
      ).status,
    ).toBe(404);
  });

  it('links to custom object records, which show it on their activity feed', async () => {
    const tenant = await app.tenant();
    await tenant.http.post('/api/v1/custom-objects', { slug: 'machines', singular: 'Machine', plural: 'Machines' });
    await tenant.http.post('/api/v1/custom-objects/machines/fields', { slug: 'name', label: 'Name', type: 'text' });
    const record = (await tenant.http.post('/api/v1/custom-objects/machines/records', { name: 'Press 4' })).body.data
      ._id;
    const file = (await uploadFile(tenant.http, 'manual', { filename: 'manual.txt' })).body.data;
    expect(
      (
        await tenant.http.post(`/api/v1/files/${file._id}/link`, {
          entityType: 'custom_object_record',
          entityId: record,
        })
      ).status,
    ).toBe(200);
    const feed = await tenant.http.get(`/api/v1/custom-objects/machines/records/${record}/activity-feed`);
    expect(feed.body.data[0]).toMatchObject({ type: 'file_linked', metadata: { fileId: file._id } });
  });

  it('refuses unknown kinds and records that are not in the workspace', async () => {
    const tenant = await app.tenant();
    const other = await app.tenant();
    const file = (await uploadFile(tenant.http, 'x')).body.data;
    const theirCompany = (await other.http.post('/api/v1/companies', { name: 'Theirs' })).body.data._id;
    for (const body of [
      { entityType: 'company', entityId: theirCompany },
      { entityType: 'ship', entityId: theirCompany },
      { entityType: 'company' },
      { entityType: 'company', entityId: 'x' },
      {},
    ]) {
      const res = await tenant.http.post(`/api/v1/files/${file._id}/link`, body);
      expect([body, res.status]).toEqual([body, 400]);
    }
  });
});

describe('tenancy and scopes', () => {
  it("another workspace's file is 404 everywhere; read keys cannot write", async () => {
    const other = await app.tenant();
    const mine = (await uploadFile(t.http, 'private')).body.data;
    const folder = (await t.http.post('/api/v1/folders', { name: `Private ${Date.now()}` })).body.data;
    expect((await other.http.get(`/api/v1/files/${mine._id}`)).status).toBe(404);
    expect((await other.http.delete(`/api/v1/files/${mine._id}`)).status).toBe(404);
    expect(
      (await other.http.post(`/api/v1/files/${mine._id}/link`, { entityType: 'company', entityId: mine._id })).status,
    ).toBe(404);
    expect((await other.http.delete(`/api/v1/folders/${folder._id}`)).status).toBe(404);
    expect((await other.http.get('/api/v1/files')).body.total).toBe(0);
    expect((await uploadFile(other.http, 'x', { fields: { folderId: folder._id } })).status).toBe(400);
    expect((await t.http.get(`/api/v1/files/${mine._id}`)).status).toBe(200);

    const reader = await app.key(t.workspaceId, ['read']);
    expect((await reader.get('/api/v1/files')).status).toBe(200);
    expect((await uploadFile(reader, 'x')).status).toBe(403);
    expect((await reader.delete(`/api/v1/files/${mine._id}`)).status).toBe(403);
    expect((await reader.post('/api/v1/folders', { name: 'Nope' })).status).toBe(403);
    expect((await uploadFile(app.anonymous, 'x')).status).toBe(401);
  });
});

describe('extension capture uploads (local storage)', () => {
  const presign = (tenant: Tenant, body?: unknown) => tenant.http.post('/api/v1/extension/captures/presign', body);
  const put = (url: string, data: Uint8Array | string, type: string) =>
    fetch(local(url), { method: 'PUT', headers: { 'content-type': type }, body: data });

  it('presigns PUT URLs that store a capture once, with the signed type, within the limit', async () => {
    const res = await presign(t, {});
    expect(res.status).toBe(200);
    const [upload] = res.body.data.uploads;
    expect(upload).toMatchObject({
      key: expect.stringMatching(new RegExp(`^captures/${t.workspaceId}/[0-9a-f]{24}\\.png$`)),
      contentType: 'image/png',
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      maxBytes: LIMIT,
    });
    expect((await put(upload.uploadUrl, 'not a png', 'image/png')).status).toBe(400);
    expect((await put(upload.uploadUrl, PNG_BYTES, 'image/jpeg')).status).toBe(400);
    expect(
      (await put(upload.uploadUrl, new Uint8Array([...PNG_BYTES, ...new Uint8Array(LIMIT)]), 'image/png')).status,
    ).toBe(413);
    const stored = await put(upload.uploadUrl, PNG_BYTES, 'image/png');
    expect(stored.status).toBe(200);
    expect(fs.readFileSync(path.join(dir, 'objects', upload.key))).toEqual(Buffer.from(PNG_BYTES));

    const token = String(upload.uploadUrl).split('/').pop()!;
    const [body, mac] = token.split('.') as [string, string];
    expect(
      (
        await put(
          `${app.baseUrl}/api/files/upload/${body}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`,
          PNG_BYTES,
          'image/png',
        )
      ).status,
    ).toBe(403);
    const signer = new UrlSigner(app.config.files.urlSecret);
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    expect(
      (
        await put(
          `${app.baseUrl}/api/files/upload/${signer.sign({ ...payload, exp: Math.floor(Date.now() / 1000) - 1 })}`,
          PNG_BYTES,
          'image/png',
        )
      ).status,
    ).toBe(410);
    // A download token does not upload.
    expect(
      (await put(`${app.baseUrl}/api/files/upload/${signer.sign({ ...payload, op: 'get' })}`, PNG_BYTES, 'image/png'))
        .status,
    ).toBe(403);
    expect(stagingEntries()).toEqual([]);
  });

  it('validates the request and needs the contribute scope', async () => {
    const many = await presign(t, {
      captures: [{ contentType: 'image/png' }, { contentType: 'image/jpeg', size: 10 }, { contentType: 'image/webp' }],
    });
    expect(many.body.data.uploads.map((u: { key: string }) => u.key.split('.').pop())).toEqual(['png', 'jpg', 'webp']);
    for (const body of [
      { captures: [] },
      { captures: Array.from({ length: 11 }, () => ({ contentType: 'image/png' })) },
      { captures: [{ contentType: 'text/html' }] },
      { captures: [{ contentType: 'image/png', size: 0 }] },
    ]) {
      expect([body, (await presign(t, body)).status]).toEqual([body, 400]);
    }
    expect((await presign(t, { captures: [{ contentType: 'image/png', size: LIMIT + 1 }] })).status).toBe(413);
    const writer = await app.key(t.workspaceId, ['read', 'write']);
    expect((await writer.post('/api/v1/extension/captures/presign', {})).status).toBe(403);
    const contributor = await app.key(t.workspaceId, ['contribute']);
    expect((await contributor.post('/api/v1/extension/captures/presign', {})).status).toBe(200);
  });
});

describe('Idempotency-Key on uploads', () => {
  it('a retry with the same file is replayed (one record); other content or fields under the key are 422', async () => {
    const before = await fileCount();
    const key = { 'idempotency-key': `upload-${Date.now()}` };
    const first = await uploadFile(t.http, 'same bytes', { filename: 'retry.txt', headers: key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await uploadFile(t.http, 'same bytes', { filename: 'retry.txt', headers: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data._id).toBe(first.body.data._id);
    expect(await fileCount()).toBe(before + 1);
    for (const [bytes, options] of [
      ['other bytes', { filename: 'retry.txt' }],
      ['same bytes', { filename: 'renamed.txt' }],
      ['same bytes', { filename: 'retry.txt', fields: { name: 'x.txt' } }],
    ] as const) {
      const mismatch = await uploadFile(t.http, bytes, { ...options, headers: key });
      expect(mismatch.status).toBe(422);
      expect(mismatch.body.code).toBe('idempotency_mismatch');
    }
    expect(await fileCount()).toBe(before + 1);
    // Without a key the same bytes make a second file; nothing stays staged.
    expect((await uploadFile(t.http, 'same bytes', { filename: 'retry.txt' })).status).toBe(201);
    expect(await fileCount()).toBe(before + 2);
    expect(stagingEntries()).toEqual([]);
  });

  it('an upload over the limit under a key is 413 and the key stays free for the corrected retry', async () => {
    const key = { 'idempotency-key': `too-big-${Date.now()}` };
    expect((await uploadFile(t.http, filled(LIMIT + 1), { filename: 'big.txt', headers: key })).status).toBe(413);
    const fixed = await uploadFile(t.http, filled(10), { filename: 'big.txt', headers: key });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    expect(stagingEntries()).toEqual([]);
  });
});
