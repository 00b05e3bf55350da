import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { expectCreated, expectError, expectOk, expectQueriesRefused } from '../../../test/support/expect';
import { withTenantOfApp } from '../../../test/support/suites';

/** A small Microsoft Graph (OneDrive) stand-in: OAuth refresh, drive, children, search, recent, items, create. */
interface FakeItem {
  id: string;
  name: string;
  parent: string;
  folder?: boolean;
  size?: number;
  mimeType?: string;
}
const items = new Map<string, FakeItem>();
const reset = (): void => {
  items.clear();
  for (const item of [
    { id: 'f1', name: 'Contracts', parent: 'root', folder: true },
    {
      id: 'i1',
      name: 'Offer.docx',
      parent: 'root',
      size: 1200,
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    },
    { id: 'i2', name: 'Signed.pdf', parent: 'f1', size: 3400, mimeType: 'application/pdf' },
  ])
    items.set(item.id, item);
};
const pathOf = (parent: string): string =>
  parent === 'root' ? '/drive/root:' : `${pathOf(items.get(parent)!.parent)}/${items.get(parent)!.name}`;
const graphItem = (i: FakeItem) => ({
  id: i.id,
  name: i.name,
  size: i.size ?? 0,
  webUrl: `https://contoso-my.sharepoint.test/${i.id}`,
  lastModifiedDateTime: '2026-11-01T10:00:00Z',
  parentReference: { driveId: 'drive-1', id: i.parent, path: pathOf(i.parent) },
  ...(i.folder ? { folder: { childCount: 0 } } : { file: { mimeType: i.mimeType ?? 'application/octet-stream' } }),
});
let tokenRequests = 0;
let seq = 0;

function fakeGraph(req: http.IncomingMessage, res: http.ServerResponse, body: string): void {
  const url = new URL(req.url!, 'http://x');
  const json = (status: number, value: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
  if (req.method === 'POST' && url.pathname === '/common/oauth2/v2.0/token') {
    const form = new URLSearchParams(body);
    tokenRequests++;
    if (form.get('client_secret') !== 'od-secret' || form.get('refresh_token') !== 'od-refresh')
      return json(400, { error: 'invalid_grant', error_description: 'bad' });
    return json(200, { access_token: 'od-access', expires_in: 3600, token_type: 'Bearer' });
  }
  if (req.headers.authorization !== 'Bearer od-access')
    return json(401, { error: { code: 'InvalidAuthenticationToken' } });
  const p = decodeURIComponent(url.pathname).replace(/^\/v1\.0/, '');
  if (p === '/me/drive')
    return json(200, {
      id: 'drive-1',
      driveType: 'business',
      owner: { user: { displayName: 'Ann Admin', email: 'ann@contoso.test' } },
    });
  if (p === '/me/drives')
    return json(200, { value: [{ id: 'drive-1', name: 'OneDrive', webUrl: 'https://contoso-my.sharepoint.test/' }] });
  if (p === '/me/drive/recent') return json(200, { value: [graphItem(items.get('i2')!)] });
  const search = /^\/me\/drive\/root\/search\(q='(.*)'\)$/.exec(p);
  if (search)
    return json(200, {
      value: [...items.values()].filter((i) => i.name.toLowerCase().includes(search[1]!.toLowerCase())).map(graphItem),
    });
  if (p === '/me/drive/root/children')
    return json(200, { value: [...items.values()].filter((i) => i.parent === 'root').map(graphItem) });
  const children = /^\/(?:me\/drive|drives\/drive-1)\/items\/([^/:]+)\/children$/.exec(p);
  if (children && req.method === 'GET')
    return items.has(children[1]!)
      ? json(200, { value: [...items.values()].filter((i) => i.parent === children[1]).map(graphItem) })
      : json(404, { error: { code: 'itemNotFound' } });
  if (children && req.method === 'POST') {
    const made = { id: `n${++seq}`, name: JSON.parse(body).name, parent: children[1]!, folder: true };
    items.set(made.id, made);
    return json(201, graphItem(made));
  }
  const upload = /^\/me\/drive\/items\/([^/:]+):\/(.+):\/content$/.exec(p);
  if (upload && req.method === 'PUT') {
    const made = {
      id: `n${++seq}`,
      name: upload[2]!,
      parent: upload[1]!,
      size: 0,
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    };
    items.set(made.id, made);
    return json(201, graphItem(made));
  }
  const item = /^\/(?:me\/drive|drives\/drive-1)\/items\/([^/:]+)$/.exec(p);
  if (item)
    return items.has(item[1]!)
      ? json(200, graphItem(items.get(item[1]!)!))
      : json(404, { error: { code: 'itemNotFound' } });
  json(404, { error: { code: 'notFound', message: p } });
}

let server: http.Server;
let bare: TestApp;
let app: TestApp;
let t: Tenant;
let graphBase: string;

/** The app's settings: OneDrive against the fake Graph server (once listening), Google Drive off. */
const oneDriveEnv = (): Record<string, string> => ({
  ONEDRIVE_CLIENT_ID: 'od-client',
  ONEDRIVE_CLIENT_SECRET: 'od-secret',
  ONEDRIVE_REFRESH_TOKEN: 'od-refresh',
  MS_GRAPH_URL: `${graphBase}/v1.0`,
  MS_LOGIN_URL: graphBase,
  OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  GOOGLE_DRIVE_CLIENT_ID: '',
});

beforeAll(async () => {
  reset();
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => fakeGraph(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  graphBase = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  bare = await startTestApp({ ONEDRIVE_CLIENT_ID: '', GOOGLE_DRIVE_CLIENT_ID: '' });
  app = await startTestApp(oneDriveEnv());
  t = await app.tenant();
});
afterAll(async () => {
  await Promise.all([bare?.close(), app?.close()]);
  await new Promise((resolve) => server.close(resolve));
});

describe('cloud storage and integrations without configuration', () => {
  it('lists no accounts and answers 503 not_configured naming the variables on every provider call', async () => {
    const tenant = await bare.tenant();
    expect((await tenant.http.get('/api/v1/files/cloud/accounts')).body).toEqual({
      data: [],
      page: 1,
      limit: 20,
      total: 0,
    });
    const calls = [
      () => tenant.http.get('/api/v1/files/cloud/browse'),
      () => tenant.http.get('/api/v1/files/cloud/browse?roots=true&withPath=true'),
      () => tenant.http.post('/api/v1/files/cloud/link', { itemId: 'abc' }),
      () => tenant.http.post('/api/v1/files/cloud/create', { name: 'Plan', kind: 'document' }),
    ];
    for (const call of calls) {
      const res = await call();
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        code: 'not_configured',
        error: expect.stringMatching(/ONEDRIVE_CLIENT_ID.*GOOGLE_DRIVE_CLIENT_ID/),
      });
    }
    const one = await tenant.http.get('/api/v1/files/cloud/browse?provider=google_drive');
    expectError(one, 503, /GOOGLE_DRIVE_CLIENT_ID, GOOGLE_DRIVE_CLIENT_SECRET, GOOGLE_DRIVE_REFRESH_TOKEN/);
    expect(one.body.error).not.toMatch(/ONEDRIVE/);

    const integrations = await tenant.http.get('/api/v1/integrations');
    expect(integrations.body).toMatchObject({ page: 1, limit: 20 });
    expect(integrations.body.data.find((i: { provider: string }) => i.provider === 'onedrive')).toMatchObject({
      configured: false,
      connected: false,
      category: 'cloud_storage',
      sync: { status: 'never' },
    });
    const sync = await tenant.http.post('/api/v1/integrations/onedrive/sync', { fullSync: true });
    expect(sync.status).toBe(503);
    expect(sync.body.code).toBe('not_configured');
    expect((await tenant.http.post('/api/v1/integrations/dropbox/sync', {})).status).toBe(404);
    expect((await tenant.http.post('/api/v1/integrations/smtp/sync', {})).status).toBe(404);
    expect((await tenant.http.post('/api/v1/integrations/onedrive/sync', { fullSync: 'yes' })).status).toBe(400);
  });

  it('validates browse, link and create input before anything else', async () => {
    const tenant = await bare.tenant();
    const badQueries = ['recent=maybe', 'provider=dropbox', 'limit=101', 'query=', 'parentId=a%20b'];
    await expectQueriesRefused(tenant.http, '/api/v1/files/cloud/browse?', badQueries);
    for (const body of [
      {},
      { itemId: '' },
      { itemId: 'x', entityType: 'company' },
      { itemId: 'x', folderId: 'nope' },
    ]) {
      expect([body, (await tenant.http.post('/api/v1/files/cloud/link', body)).status]).toEqual([body, 400]);
    }
    for (const body of [{ kind: 'document' }, { name: 'a/b', kind: 'document' }, { name: 'x', kind: 'video' }]) {
      expect([body, (await tenant.http.post('/api/v1/files/cloud/create', body)).status]).toEqual([body, 400]);
    }
  });

  it('sync needs the admin scope', async () => {
    const tenant = await bare.tenant();
    const writer = await bare.key(tenant.workspaceId, ['read', 'write']);
    expect((await writer.post('/api/v1/integrations/onedrive/sync', {})).status).toBe(403);
    expect((await writer.get('/api/v1/integrations')).status).toBe(200);
  });
});

describe('OneDrive through Microsoft Graph', () => {
  it('lists the connected account without credentials', async () => {
    const res = await t.http.get('/api/v1/files/cloud/accounts');
    expect(res.body).toEqual({
      data: [
        {
          provider: 'onedrive',
          label: 'Microsoft OneDrive',
          accountId: 'drive-1',
          displayName: 'Ann Admin',
          email: 'ann@contoso.test',
          status: 'connected',
        },
      ],
      page: 1,
      limit: 20,
      total: 1,
    });
    const integrations = JSON.stringify((await t.http.get('/api/v1/integrations')).body);
    expect(integrations).not.toMatch(/od-secret|od-refresh|od-access/);
    expect(JSON.parse(integrations).data.find((i: { provider: string }) => i.provider === 'onedrive')).toMatchObject({
      configured: true,
      connected: true,
    });
  });

  it('browses roots, folders with paths, search and recent files', async () => {
    const roots = await t.http.get('/api/v1/files/cloud/browse?roots=true');
    expect(roots.body.data).toEqual([expect.objectContaining({ id: 'drive-1', kind: 'drive', name: 'OneDrive' })]);
    const top = await t.http.get('/api/v1/files/cloud/browse');
    expect(top.body).toMatchObject({ page: 1, limit: 20, total: 2 });
    expect(top.body.data.map((i: { name: string; kind: string }) => [i.name, i.kind])).toEqual([
      ['Contracts', 'folder'],
      ['Offer.docx', 'file'],
    ]);
    const inside = await t.http.get('/api/v1/files/cloud/browse?parentId=f1&driveId=drive-1&withPath=true');
    expect(inside.body.data).toEqual([
      expect.objectContaining({
        id: 'i2',
        name: 'Signed.pdf',
        parentId: 'f1',
        driveId: 'drive-1',
        mimeType: 'application/pdf',
        size: 3400,
        path: '/Contracts/Signed.pdf',
      }),
    ]);
    expect(
      (await t.http.get('/api/v1/files/cloud/browse?query=offer')).body.data.map((i: { id: string }) => i.id),
    ).toEqual(['i1']);
    expect(
      (await t.http.get('/api/v1/files/cloud/browse?recent=true')).body.data.map((i: { id: string }) => i.id),
    ).toEqual(['i2']);
    const missing = await t.http.get('/api/v1/files/cloud/browse?parentId=nope');
    expect(missing.status).toBe(400);
  });

  it('links a cloud file to a record, creates documents, and syncs renamed and deleted items', async () => {
    const company = (await t.http.post('/api/v1/companies', { name: 'Contoso' })).body.data._id;
    const linked = await t.http.post('/api/v1/files/cloud/link', {
      itemId: 'i1',
      entityType: 'company',
      entityId: company,
    });
    expectCreated(linked, {
      name: 'Offer.docx',
      source: 'cloud',
      storage: null,
      size: 1200,
      cloud: { provider: 'onedrive', itemId: 'i1', webUrl: 'https://contoso-my.sharepoint.test/i1' },
      links: [{ entityType: 'company', entityId: company }],
    });
    const got = await t.http.get(`/api/v1/files/${linked.body.data._id}`);
    expect(got.body.data.downloadUrl).toBe('https://contoso-my.sharepoint.test/i1');
    expect((await t.http.get(`/api/v1/companies/${company}/activity-feed`)).body.data[0]).toMatchObject({
      type: 'file_linked',
      metadata: { fileId: linked.body.data._id },
    });
    expect((await t.http.post('/api/v1/files/cloud/link', { itemId: 'f1' })).status).toBe(400);
    const before = (await t.http.get('/api/v1/files?source=cloud')).body.total;
    expect(
      (
        await t.http.post('/api/v1/files/cloud/link', {
          itemId: 'i1',
          entityType: 'deal',
          entityId: '0123456789abcdef01234567',
        })
      ).status,
    ).toBe(400);
    expect((await t.http.get('/api/v1/files?source=cloud')).body.total).toBe(before);
    expect((await t.http.post('/api/v1/files/cloud/link', { itemId: 'gone' })).status).toBe(400);
    const signed = (await t.http.post('/api/v1/files/cloud/link', { itemId: 'i2', driveId: 'drive-1' })).body.data;

    const doc = await t.http.post('/api/v1/files/cloud/create', { name: 'Plan', kind: 'document' });
    expect(doc.status).toBe(201);
    expect(doc.body.data.item).toMatchObject({ name: 'Plan.docx', kind: 'file' });
    expect(doc.body.data.file).toMatchObject({ name: 'Plan.docx', source: 'cloud' });
    const folder = await t.http.post('/api/v1/files/cloud/create', { name: 'Quotes', kind: 'folder', parentId: 'f1' });
    expect(folder.body.data).toMatchObject({ item: { name: 'Quotes', kind: 'folder', parentId: 'f1' }, file: null });

    items.get('i1')!.name = 'Offer v2.docx';
    items.delete('i2');
    const sync = await t.http.post('/api/v1/integrations/onedrive/sync', { fullSync: true });
    expectOk(sync, {
      provider: 'onedrive',
      fullSync: true,
      itemsChecked: 3,
      itemsMissing: 1,
      itemsUpdated: 2,
      sync: { status: 'ok', lastFullSyncAt: expect.any(String) },
    });
    expect((await t.http.get(`/api/v1/files/${linked.body.data._id}`)).body.data.name).toBe('Offer v2.docx');
    expect((await t.http.get(`/api/v1/files/${signed._id}`)).body.data.cloud).toMatchObject({ missing: true });
    // Incremental: nothing was added since the last success.
    expect((await t.http.post('/api/v1/integrations/onedrive/sync', {})).body.data).toMatchObject({
      fullSync: false,
      itemsChecked: 0,
    });
    const health = (await t.http.get('/api/v1/integrations')).body.data.find(
      (i: { provider: string }) => i.provider === 'onedrive',
    );
    expect(health.sync).toMatchObject({ status: 'ok', itemsChecked: 0, lastSuccessAt: expect.any(String) });
    // Another workspace does not see these files.
    const other = await app.tenant();
    expect((await other.http.get('/api/v1/files?source=cloud')).body.total).toBe(0);
    expect(tokenRequests).toBe(1);
  });

  it('a provider limited to other workspaces is not connected here', async () => {
    const limited = { ...oneDriveEnv(), ONEDRIVE_WORKSPACE_IDS: '0123456789abcdef01234567' };
    await withTenantOfApp(limited, async (tenant) => {
      expect((await tenant.http.get('/api/v1/files/cloud/accounts')).body.total).toBe(0);
      const res = await tenant.http.get('/api/v1/files/cloud/browse?provider=onedrive');
      expectError(res, 503, /ONEDRIVE_WORKSPACE_IDS/);
    });
  });
});
