import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectError, expectOk, expectRejectedCreate } from '../../../test/support/expect';
import { companyDetails } from './fixtures';
import { expectDateFilters, itChecksListQueries } from '../../../test/support/list-queries';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const countCompanies = async (): Promise<number> => (await t.http.get('/api/v1/companies?limit=1')).body.total;

describe('POST /api/v1/companies', () => {
  it('creates a company with every field and answers 201 { data }', async () => {
    const res = await t.http.post('/api/v1/companies', {
      name: '  Acme ApS ',
      ...companyDetails,
      email: 'Info@Acme.dk',
      customFields: [{ name: 'segment', value: 'SMB' }],
      tags: ['vip', 'vip', 'lead'],
    });
    expect(res.status).toBe(201);
    const c = res.body.data;
    expect(c._id).toMatch(/^[0-9a-f]{24}$/);
    expect(c).toMatchObject({
      name: 'Acme ApS',
      cvr: '12345678',
      email: 'info@acme.dk',
      city: 'Aarhus',
      employees: 42,
      customFields: [{ name: 'segment', value: 'SMB' }],
      tags: ['vip', 'lead'],
      avatar: null,
      ownerId: t.userId,
    });
    expect(Date.parse(c.createdAt)).not.toBeNaN();
    const events = await eventsFor(app.runtime.deps.orm, c._id);
    expect(events.map((e) => e.type)).toEqual(['company_created', 'tag_added', 'tag_added']);
    expect(events[0]!.payload.company.name).toBe('Acme ApS');
  });

  it('accepts customFields as an object map and converts it to name/value pairs', async () => {
    const res = await makeCompany(t.http, { customFields: { tier: 'gold', seats: 5 } });
    expect(res.body.data.customFields).toEqual([
      { name: 'tier', value: 'gold' },
      { name: 'seats', value: 5 },
    ]);
  });

  it('ignores unknown and read-only fields (no mass assignment)', async () => {
    const res = await makeCompany(t.http, {
      workspaceId: '0123456789abcdef01234567',
      _id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      ownerId: 'x',
      createdAt: '2000-01-01',
    });
    expect(res.status).toBe(201);
    expect(res.body.data._id).not.toBe('aaaaaaaaaaaaaaaaaaaaaaaa');
    expect(res.body.data.ownerId).toBe(t.userId);
    expect(res.body.data.createdAt).not.toMatch(/^2000/);
  });

  const bad: [string, unknown, RegExp][] = [
    ['missing name', { city: 'x' }, /name/],
    ['empty name', { name: '   ' }, /name/],
    ['name over 300', { name: 'x'.repeat(301) }, /name.*300/],
    ['name as number', { name: 5 }, /name/],
    ['invalid e-mail', { name: 'a', email: 'not-an-email' }, /email/],
    ['employees negative', { name: 'a', employees: -1 }, /employees/],
    ['employees fractional', { name: 'a', employees: 1.5 }, /employees/],
    ['employees as string', { name: 'a', employees: '5' }, /employees/],
    ['tags not array', { name: 'a', tags: 'vip' }, /tags/],
    ['101 tags', { name: 'a', tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, /tags/],
    ['tag over 100 chars', { name: 'a', tags: ['x'.repeat(101)] }, /tag/],
    ['customFields wrong shape', { name: 'a', customFields: 'x' }, /customFields/],
    ['city over 200', { name: 'a', city: 'x'.repeat(201) }, /city/],
    ['logoUrl http', { name: 'a', logoUrl: 'http://example.com/x.png' }, /logoUrl/],
    ['body is an array', [{ name: 'a' }], /body/],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/companies', body, message, countCompanies);
  });

  it('accepts strings exactly at their limit', async () => {
    const res = await makeCompany(t.http, { name: 'n'.repeat(300), city: 'c'.repeat(200), zip: 'z'.repeat(20) });
    expect(res.status).toBe(201);
    expect(res.body.data.name).toHaveLength(300);
  });

  it('malformed JSON is 400, a non-JSON body is 400, an oversize body is 413', async () => {
    const malformed = await t.http.post('/api/v1/companies', undefined, {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toEqual(expect.any(String));
    const text = await t.http.post('/api/v1/companies', undefined, {
      raw: 'name=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(400);
    const huge = await t.http.post('/api/v1/companies', {
      name: 'x',
      notes: 'y'.repeat(app.config.bodyLimitBytes + 10),
    });
    expectError(huge, 413, /too large/);
  });

  it('preview (body flag or query) returns current/proposed/diff and writes nothing', async () => {
    const before = await countCompanies();
    const viaBody = await t.http.post('/api/v1/companies', { name: 'Preview Co', city: 'Odense', preview: true });
    expectOk(viaBody, {
      preview: true,
      current: null,
      proposed: { name: 'Preview Co', city: 'Odense' },
    });
    expect(viaBody.body.data.diff.name).toEqual({ from: null, to: 'Preview Co' });
    const viaQuery = await t.http.post('/api/v1/companies?preview=true', { name: 'Preview Co' });
    expect(viaQuery.body.data.preview).toBe(true);
    expect(await countCompanies()).toBe(before);
  });
});

describe('GET /api/v1/companies/:id', () => {
  it('returns the company, honours fields=, 404s unknown and malformed ids', async () => {
    const id = (await makeCompany(t.http, { city: 'Vejle' })).body.data._id;
    const full = await t.http.get(`/api/v1/companies/${id}`);
    expect(full.status).toBe(200);
    expect(full.body.data.city).toBe('Vejle');
    const slim = await t.http.get(`/api/v1/companies/${id}?fields=name,city`);
    expect(Object.keys(slim.body.data).sort()).toEqual(['_id', 'city', 'name']);
    expect((await t.http.get(`/api/v1/companies/${id}?fields=name,secret`)).status).toBe(400);
    for (const other of ['0123456789abcdef01234567', 'not-an-id', '123', `${id}x`]) {
      expectError(await t.http.get(`/api/v1/companies/${other}`), 404, /company not found/);
    }
  });
});

describe('GET /api/v1/companies', () => {
  it('paginates with total, searches with q, supports view=summary', async () => {
    const mine = await app.tenant();
    for (const name of ['Nordic Bikes', 'Nordic Boats', 'Southern Cars'])
      await makeCompany(mine.http, { name, city: 'Aalborg' });
    const page1 = await mine.http.get('/api/v1/companies?limit=2&page=1');
    expect(page1.body).toMatchObject({ page: 1, limit: 2, total: 3 });
    expect(page1.body.data).toHaveLength(2);
    const page2 = await mine.http.get('/api/v1/companies?limit=2&page=2');
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.data[0].name).toBe('Nordic Bikes'); // newest first
    const q = await mine.http.get('/api/v1/companies?q=nordic');
    expect(q.body.data.map((c: any) => c.name).sort()).toEqual(['Nordic Bikes', 'Nordic Boats']);
    const pct = await mine.http.get('/api/v1/companies?q=%25');
    expect(pct.body.total).toBe(0);
    const summary = await mine.http.get('/api/v1/companies?view=summary&limit=1');
    expect(Object.keys(summary.body.data[0]).sort()).toEqual(
      ['_id', 'city', 'cvr', 'email', 'name', 'phone', 'tags', 'updatedAt', 'website'].sort(),
    );
  });

  it('filters by updatedSince (oldest change first) and by dateFrom/dateTo and their aliases', async () => {
    const mine = await expectDateFilters(app, '/api/v1/companies', 'name', makeCompany, { city: 'Later' });
    const today = new Date().toISOString().slice(0, 10);
    expect((await mine.get(`/api/v1/companies?dateTo=${today}`)).body.total).toBe(2);
  });

  const badQueries: [string, RegExp][] = [
    ['limit=abc', /limit/],
    ['page=1.5', /page/],
    ['dateFrom=2024-13-45', /dateFrom/],
  ];
  itChecksListQueries(() => t.http, '/api/v1/companies', badQueries, 500, 'companies');
});

describe('PUT /api/v1/companies/:id', () => {
  it('updates only given keys, merges customFields, logs the change to the feed and emits events', async () => {
    const c = (
      await makeCompany(t.http, {
        name: 'Merge Co',
        city: 'Kolding',
        customFields: [
          { name: 'a', value: 1 },
          { name: 'b', value: 2 },
        ],
        tags: ['x'],
      })
    ).body.data;
    const res = await t.http.put(`/api/v1/companies/${c._id}`, {
      website: 'https://merge.example',
      customFields: { b: 3, c: 'new', a: null },
      tags: ['y'],
    });
    expectOk(res, {
      name: 'Merge Co',
      city: 'Kolding',
      website: 'https://merge.example',
      tags: ['y'],
    });
    expect(res.body.data.customFields).toEqual([
      { name: 'b', value: 3 },
      { name: 'c', value: 'new' },
    ]);
    const feed = await t.http.get(`/api/v1/companies/${c._id}/activity-feed`);
    expect(feed.body.data[0]).toMatchObject({ type: 'record_updated', system: true });
    expect(feed.body.data[0].metadata.changes.website).toEqual({ from: null, to: 'https://merge.example' });
    expect(feed.body.data.at(-1).type).toBe('record_created');
    const events = (await eventsFor(app.runtime.deps.orm, c._id)).map((e) => e.type);
    expect(events).toEqual(['company_created', 'tag_added', 'company_updated', 'tag_added', 'tag_removed']);
    // Activities exclude system rows.
    expect((await t.http.get(`/api/v1/companies/${c._id}/activities`)).body.total).toBe(0);
  });

  it('clears a field with null or "", and an unchanged PUT emits nothing', async () => {
    const c = (await makeCompany(t.http, { city: 'Esbjerg', email: 'a@b.dk' })).body.data;
    const res = await t.http.put(`/api/v1/companies/${c._id}`, { city: '', email: null });
    expect(res.body.data).toMatchObject({ city: null, email: null });
    const before = (await eventsFor(app.runtime.deps.orm, c._id)).length;
    await t.http.put(`/api/v1/companies/${c._id}`, { city: null });
    expect((await eventsFor(app.runtime.deps.orm, c._id)).length).toBe(before);
  });

  it('preview shows the diff and changes nothing', async () => {
    const c = (await makeCompany(t.http, { name: 'Before' })).body.data;
    const res = await t.http.put(`/api/v1/companies/${c._id}?preview=true`, { name: 'After' });
    expect(res.body.data).toMatchObject({
      preview: true,
      current: { name: 'Before' },
      proposed: { name: 'After' },
      diff: { name: { from: 'Before', to: 'After' } },
    });
    expect((await t.http.get(`/api/v1/companies/${c._id}`)).body.data.name).toBe('Before');
  });

  it('rejects bad input with 400 and leaves the record unchanged', async () => {
    const c = (await makeCompany(t.http, { name: 'Stable' })).body.data;
    for (const body of [{ name: '' }, { employees: 'many' }, { email: 'x' }, { avatar: 'ftp://x' }]) {
      const res = await t.http.put(`/api/v1/companies/${c._id}`, body);
      expect(res.status).toBe(400);
    }
    expect((await t.http.get(`/api/v1/companies/${c._id}`)).body.data).toEqual(c);
  });
});

describe('DELETE /api/v1/companies/:id and links', () => {
  it('links and unlinks people; deleting the company unlinks them', async () => {
    const c = (await makeCompany(t.http)).body.data;
    const p = (await makePerson(t.http)).body.data;
    const link = await t.http.post(`/api/v1/companies/${c._id}/people`, { personId: p._id });
    expect(link.body.data).toEqual({ linked: true });
    expect((await t.http.post(`/api/v1/companies/${c._id}/people`, { personId: p._id })).body.data).toEqual({
      linked: false,
    });
    expect((await t.http.get(`/api/v1/people/${p._id}`)).body.data.companyId).toBe(c._id);
    const people = await t.http.get(`/api/v1/companies/${c._id}/people`);
    expect(people.body.data.map((x: any) => x._id)).toEqual([p._id]);
    const companies = await t.http.get(`/api/v1/people/${p._id}/companies`);
    expect(companies.body.data.map((x: any) => x._id)).toEqual([c._id]);
    expect((await t.http.post(`/api/v1/companies/${c._id}/people`, { personId: 'nope' })).status).toBe(400);
    expect(
      (await t.http.post(`/api/v1/companies/${c._id}/people`, { personId: '0123456789abcdef01234567' })).status,
    ).toBe(400);

    const unlink = await t.http.request('DELETE', `/api/v1/companies/${c._id}/people?personId=${p._id}`);
    expect(unlink.body.data).toEqual({ unlinked: true });
    expect((await t.http.get(`/api/v1/people/${p._id}`)).body.data.companyId).toBeNull();

    await t.http.post(`/api/v1/companies/${c._id}/people`, { personId: p._id });
    const del = await t.http.delete(`/api/v1/companies/${c._id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/companies/${c._id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/people/${p._id}`)).body.data.companyId).toBeNull();
    expect((await t.http.delete(`/api/v1/companies/${c._id}`)).status).toBe(404);
    expect((await eventsFor(app.runtime.deps.orm, c._id)).map((e) => e.type)).toContain('company_deleted');
  });

  it('sub-resource lists 404 for an unknown company and reject bad paging', async () => {
    for (const sub of ['people', 'deals', 'activities', 'activity-feed']) {
      expect((await t.http.get(`/api/v1/companies/0123456789abcdef01234567/${sub}`)).status).toBe(404);
    }
    const c = (await makeCompany(t.http)).body.data;
    expect((await t.http.get(`/api/v1/companies/${c._id}/deals?limit=101`)).status).toBe(400);
    const deals = await t.http.get(`/api/v1/companies/${c._id}/deals`);
    expect(deals.body).toMatchObject({ data: [], page: 1, limit: 20, total: 0 });
  });

  it('wrong method on a known path is 405 with { error }', async () => {
    const res = await t.http.request('PATCH', '/api/v1/companies');
    expect(res.status).toBe(405);
    expect(res.body.error).toEqual(expect.any(String));
  });
});

describe('image fields (avatar, logoUrl)', () => {
  const png = (size: number): string => {
    const bytes = Buffer.alloc(size);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
    bytes.writeUInt32BE(Date.now() % 0xffffffff, size - 4);
    return `data:image/png;base64,${bytes.toString('base64')}`;
  };

  it('re-hosts a data URL as a workspace image served by this API, and "" clears it', async () => {
    const c = (await makeCompany(t.http)).body.data;
    const res = await t.http.put(`/api/v1/companies/${c._id}`, { logoUrl: png(64) });
    expect(res.status).toBe(200);
    const url: string = res.body.data.logoUrl;
    expect(url).toMatch(/\/api\/v1\/images\/[\w-]+$/);
    const img = await fetch(app.baseUrl + new URL(url).pathname);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    const cleared = await t.http.put(`/api/v1/companies/${c._id}`, { logoUrl: '' });
    expect(cleared.body.data.logoUrl).toBeNull();
  });

  it('accepts exactly 2 MB and refuses 2 MB + 1 byte with 413, leaving the record unchanged', async () => {
    const p = (await makePerson(t.http)).body.data;
    const ok = await t.http.put(`/api/v1/people/${p._id}`, { avatar: png(2 * 1024 * 1024) });
    expect(ok.status).toBe(200);
    expect(ok.body.data.avatar).toMatch(/\/api\/v1\/images\//);
    const tooBig = await t.http.put(`/api/v1/people/${p._id}`, { avatar: png(2 * 1024 * 1024 + 1) });
    expectError(tooBig, 413, /2 MB/);
    expect((await t.http.get(`/api/v1/people/${p._id}`)).body.data.avatar).toBe(ok.body.data.avatar);
  });

  it('refuses non-image data, mismatched bytes and private-network URLs with 400', async () => {
    const c = (await makeCompany(t.http)).body.data;
    for (const logoUrl of [
      'data:text/plain;base64,aGVsbG8=',
      `data:image/png;base64,${Buffer.from('not a png at all').toString('base64')}`,
      'https://127.0.0.1/logo.png',
      'https://localhost/logo.png',
    ]) {
      const res = await t.http.put(`/api/v1/companies/${c._id}`, { logoUrl });
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual(expect.any(String));
    }
  });
});
