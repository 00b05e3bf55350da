import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { expectCreated } from '../../../test/support/expect';

/**
 * A small Google Drive v3 stand-in: OAuth refresh, about, drives, files list (parents / name / recent), get, create.
 */
interface FakeFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  size?: string;
}
const FOLDER = 'application/vnd.google-apps.folder';
const files = new Map<string, FakeFile>([
  ['root', { id: 'root', name: 'My Drive', mimeType: FOLDER, parents: [] }],
  ['gf1', { id: 'gf1', name: 'Sales', mimeType: FOLDER, parents: ['root'] }],
  ['g1', { id: 'g1', name: 'Price list.pdf', mimeType: 'application/pdf', parents: ['gf1'], size: '5120' }],
  ['g2', { id: 'g2', name: 'Notes.txt', mimeType: 'text/plain', parents: ['root'], size: '12' }],
]);
const view = (f: FakeFile) => ({
  id: f.id,
  name: f.name,
  mimeType: f.mimeType,
  parents: f.parents,
  ...(f.size ? { size: f.size } : {}),
  modifiedTime: '2026-11-02T09:00:00Z',
  webViewLink: `https://drive.google.test/${f.id}`,
});
let seq = 0;
const queries: string[] = [];

function fakeDrive(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url!, 'http://x');
  const json = (status: number, value: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (req.method === 'POST' && url.pathname === '/token') {
    const form = new URLSearchParams(body);
    return form.get('refresh_token') === 'gd-refresh'
      ? json(200, { access_token: 'gd-access', expires_in: 3599 })
      : json(400, { error: 'invalid_grant' });
  }
  if (req.headers.authorization !== 'Bearer gd-access')
    return json(401, { error: { code: 401, message: 'unauthenticated' } });
  const p = url.pathname.replace(/^\/drive\/v3/, '');
  if (p === '/about')
    return json(200, { user: { displayName: 'Bo Buyer', emailAddress: 'bo@example.test', permissionId: 'perm-1' } });
  if (p === '/drives') return json(200, { drives: [{ id: 'sd1', name: 'Team drive' }] });
  if (p === '/files' && req.method === 'GET') {
    const q = url.searchParams.get('q') ?? '';
    queries.push(q);
    const parent = /'([^']+)' in parents/.exec(q)?.[1];
    const name = /name contains '([^']+)'/.exec(q)?.[1];
    const all = [...files.values()].filter((f) => f.id !== 'root');
    const hits = parent
      ? all.filter((f) => f.parents.includes(parent))
      : name
        ? all.filter((f) => f.name.toLowerCase().includes(name.toLowerCase()))
        : all;
    return json(200, { files: hits.map(view) });
  }
  if (p === '/files' && req.method === 'POST') {
    const input = JSON.parse(body) as { name: string; mimeType: string; parents: string[] };
    const made = { id: `gn${++seq}`, name: input.name, mimeType: input.mimeType, parents: input.parents };
    files.set(made.id, made);
    return json(200, view(made));
  }
  const one = /^\/files\/([^/]+)$/.exec(p);
  if (one)
    return files.has(one[1]!)
      ? json(200, view(files.get(one[1]!)!))
      : json(404, { error: { code: 404, message: 'File not found' } });
  json(404, { error: { code: 404, message: p } });
}

let server: http.Server;
let app: TestApp;
let t: Tenant;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => fakeDrive(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = await startTestApp({
    GOOGLE_DRIVE_CLIENT_ID: 'gd-client',
    GOOGLE_DRIVE_CLIENT_SECRET: 'gd-secret',
    GOOGLE_DRIVE_REFRESH_TOKEN: 'gd-refresh',
    GOOGLE_OAUTH_TOKEN_URL: `${base}/token`,
    GOOGLE_DRIVE_API_URL: `${base}/drive/v3`,
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    ONEDRIVE_CLIENT_ID: '',
  });
  t = await app.tenant();
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => server.close(resolve));
});

describe('Google Drive through the Drive API v3', () => {
  it('lists the account, browses drives, folders with paths and name search', async () => {
    expect((await t.http.get('/api/v1/files/cloud/accounts')).body.data).toEqual([
      {
        provider: 'google_drive',
        label: 'Google Drive',
        accountId: 'perm-1',
        displayName: 'Bo Buyer',
        email: 'bo@example.test',
        status: 'connected',
      },
    ]);
    const roots = await t.http.get('/api/v1/files/cloud/browse?roots=true');
    expect(roots.body.data.map((d: { id: string; kind: string }) => [d.id, d.kind])).toEqual([
      ['root', 'drive'],
      ['sd1', 'drive'],
    ]);
    const top = await t.http.get('/api/v1/files/cloud/browse');
    expect(top.body.data.map((f: { name: string; kind: string }) => [f.name, f.kind])).toEqual([
      ['Sales', 'folder'],
      ['Notes.txt', 'file'],
    ]);
    const sales = await t.http.get('/api/v1/files/cloud/browse?parentId=gf1&withPath=true');
    expect(sales.body.data).toEqual([
      expect.objectContaining({
        id: 'g1',
        name: 'Price list.pdf',
        kind: 'file',
        mimeType: 'application/pdf',
        size: 5120,
        parentId: 'gf1',
        path: '/Sales/Price list.pdf',
        webUrl: 'https://drive.google.test/g1',
      }),
    ]);
    const found = await t.http.get(`/api/v1/files/cloud/browse?query=${encodeURIComponent("price's")}`);
    expect(found.status).toBe(200);
    expect(queries.at(-1)).toBe("trashed = false and name contains 'price\\'s'");
    expect(
      (await t.http.get('/api/v1/files/cloud/browse?query=price')).body.data.map((f: { id: string }) => f.id),
    ).toEqual(['g1']);
  });

  it('links a Drive file, creates a Google Doc and syncs', async () => {
    const lead = (await t.http.post('/api/v1/leads', { title: 'Drive lead' })).body.data._id;
    const linked = await t.http.post('/api/v1/files/cloud/link', { itemId: 'g1', entityType: 'lead', entityId: lead });
    expectCreated(linked, {
      name: 'Price list.pdf',
      contentType: 'application/pdf',
      size: 5120,
      source: 'cloud',
      cloud: { provider: 'google_drive', itemId: 'g1', path: '/Sales/Price list.pdf' },
    });
    const doc = await t.http.post('/api/v1/files/cloud/create', {
      name: 'Proposal',
      kind: 'document',
      parentId: 'gf1',
    });
    expect(doc.status).toBe(201);
    expect(doc.body.data.item).toMatchObject({
      name: 'Proposal',
      kind: 'file',
      mimeType: 'application/vnd.google-apps.document',
      parentId: 'gf1',
    });
    expect(doc.body.data.file).toMatchObject({ name: 'Proposal', source: 'cloud' });
    files.get('g1')!.name = 'Price list 2027.pdf';
    const sync = await t.http.post('/api/v1/integrations/google_drive/sync', { fullSync: true });
    expect(sync.body.data).toMatchObject({
      provider: 'google_drive',
      itemsChecked: 2,
      itemsUpdated: 1,
      itemsMissing: 0,
      sync: { status: 'ok' },
    });
    expect((await t.http.get(`/api/v1/files/${linked.body.data._id}`)).body.data).toMatchObject({
      name: 'Price list 2027.pdf',
      downloadUrl: 'https://drive.google.test/g1',
    });
  });
});
