import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { createVia, makeCompany, makeLead, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectError, expectOk, expectRejectedCreate } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const total = async (tenant: Tenant, resource: string): Promise<number> =>
  (await tenant.http.get(`/api/v1/${resource}?limit=1`)).body.total;

describe('POST /api/v1/import/companies', () => {
  it('saves valid rows through the service, reports invalid rows by index, skips duplicates by default', async () => {
    const mine = await app.tenant();
    const existing = (await makeCompany(mine.http, { name: 'Existing ApS', cvr: '40000001' })).body.data;
    const res = await mine.http.post('/api/v1/import/companies', {
      rows: [
        { name: 'Imported One', city: 'Aarhus', tags: ['import'] },
        { city: 'No name' },
        { name: 'Bad mail', email: 'not-an-email' },
        { name: 'Whatever', cvr: '40000001' },
        'not an object',
        { name: 'Imported Two', employees: 3 },
      ],
    });
    expectOk(res, {
      entityType: 'company',
      dryRun: false,
      dedupe: 'skip',
      total: 6,
      created: 2,
      updated: 0,
      skipped: 1,
      failed: 3,
    });
    expect(res.body.data.importId).toMatch(/^[0-9a-f]{24}$/);
    expect(res.body.data.errors).toEqual([
      { row: 1, errors: [expect.objectContaining({ path: 'name' })] },
      { row: 2, errors: [{ path: 'email', error: 'must be a valid e-mail address' }] },
      { row: 4, errors: [{ path: '', error: 'row must be an object' }] },
    ]);
    const list = (await mine.http.get('/api/v1/companies?limit=10')).body.data;
    expect(list.map((c: any) => c.name).sort()).toEqual(['Existing ApS', 'Imported One', 'Imported Two']);
    const one = list.find((c: any) => c.name === 'Imported One');
    expect(one).toMatchObject({ city: 'Aarhus', tags: ['import'], ownerId: mine.userId });
    expect((await eventsFor(app.runtime.deps.orm, one._id)).map((e) => e.type)).toEqual([
      'company_created',
      'tag_added',
    ]);
    expect((await mine.http.get(`/api/v1/companies/${existing._id}`)).body.data.name).toBe('Existing ApS');
  });

  it('dedupe update changes the duplicate (cvr, else case-insensitive name); none creates it again', async () => {
    const mine = await app.tenant();
    const byCvr = (await makeCompany(mine.http, { name: 'Cvr Co', cvr: '40000002' })).body.data;
    const byName = (await makeCompany(mine.http, { name: 'Name Co' })).body.data;
    const upd = await mine.http.post('/api/v1/import/companies', {
      rows: [
        { name: 'Cvr Co Renamed', cvr: '40000002', city: 'Odense' },
        { name: 'name co', city: 'Vejle' },
      ],
      options: { dedupe: 'update' },
    });
    expect(upd.body.data).toMatchObject({ created: 0, updated: 2, failed: 0 });
    expect((await mine.http.get(`/api/v1/companies/${byCvr._id}`)).body.data).toMatchObject({
      name: 'Cvr Co Renamed',
      city: 'Odense',
    });
    expect((await mine.http.get(`/api/v1/companies/${byName._id}`)).body.data.city).toBe('Vejle');
    expect((await eventsFor(app.runtime.deps.orm, byName._id)).map((e) => e.type)).toEqual([
      'company_created',
      'company_updated',
    ]);
    const none = await mine.http.post('/api/v1/import/companies', {
      rows: [{ name: 'Name Co' }],
      options: { dedupe: 'none' },
    });
    expect(none.body.data).toMatchObject({ created: 1, skipped: 0 });
    expect(await total(mine, 'companies')).toBe(3);
  });
});

describe('people, leads and deals', () => {
  it('people: duplicates by any e-mail; references are checked per row', async () => {
    const mine = await app.tenant();
    await makePerson(mine.http, { firstName: 'Old', emails: [{ email: 'old@people.dk' }] });
    const res = await mine.http.post('/api/v1/import/people', {
      rows: [
        { firstName: 'New', emails: [{ email: 'new@people.dk' }] },
        { firstName: 'Dup', emails: [{ email: 'other@people.dk' }, { email: 'OLD@people.dk' }] },
        { firstName: 'Ref', companyId: '0123456789abcdef01234567' },
      ],
    });
    expect(res.body.data).toMatchObject({ created: 1, skipped: 1, failed: 1 });
    expect(res.body.data.errors).toEqual([
      { row: 2, errors: [{ path: 'companyId', error: 'no company with id 0123456789abcdef01234567' }] },
    ]);
    expect(await total(mine, 'people')).toBe(2);
  });

  it('leads: duplicates by e-mail, scored and routed like the create endpoint', async () => {
    const mine = await app.tenant();
    await makeLead(mine.http, { email: 'known@leads.dk' });
    const res = await mine.http.post('/api/v1/import/leads', {
      rows: [
        { title: 'L1', email: 'Known@Leads.dk', status: 'contacted' },
        { title: 'L2', email: 'fresh@leads.dk' },
        { title: '' },
      ],
      options: { dedupe: 'update' },
    });
    expect(res.body.data).toMatchObject({ created: 1, updated: 1, failed: 1 });
    expect(res.body.data.errors[0]).toMatchObject({ row: 2, errors: [{ path: 'title' }] });
    const leads = (await mine.http.get('/api/v1/leads?limit=10')).body.data;
    expect(leads.find((l: any) => l.email === 'known@leads.dk').status).toBe('contacted');
  });

  it('deals: never duplicates; a row that fails while saving (unknown stage) leaves nothing of itself', async () => {
    const mine = await app.tenant();
    const res = await mine.http.post('/api/v1/import/deals', {
      rows: [
        { title: 'D1', value: 100 },
        { title: 'D1', value: 100 },
        { title: 'D2', stageId: '0123456789abcdef01234567' },
        { title: 'D3', priority: 'urgent' },
      ],
      options: { dedupe: 'skip' },
    });
    expect(res.body.data).toMatchObject({ dedupe: 'none', created: 2, skipped: 0, failed: 2 });
    expect(res.body.data.errors.map((e: any) => [e.row, e.errors[0].path])).toEqual([
      [2, 'stageId'],
      [3, 'priority'],
    ]);
    expect(await total(mine, 'deals')).toBe(2);
    const outbox = await app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from outbox_event where workspace_id = ? and type = 'deal_created'`, [
        mine.workspaceId,
      ]);
    expect(outbox[0].n).toBe(2);
  });
});

describe('POST /api/v1/import/validate', () => {
  it('returns the same report and saves nothing (duplicates within the batch count)', async () => {
    const mine = await app.tenant();
    await makeCompany(mine.http, { name: 'Known', cvr: '40000003' });
    const rows = [
      { name: 'Brand new' },
      { name: 'brand NEW' },
      { name: 'X', cvr: '40000003' },
      { name: 'Bad', employees: -1 },
    ];
    const res = await mine.http.post('/api/v1/import/validate', { entityType: 'companies', rows });
    expectOk(res, {
      importId: null,
      dryRun: true,
      entityType: 'company',
      total: 4,
      created: 1,
      skipped: 2,
      failed: 1,
    });
    expect(res.body.data.errors).toEqual([{ row: 3, errors: [expect.objectContaining({ path: 'employees' })] }]);
    expect(await total(mine, 'companies')).toBe(1);
    expect((await mine.http.get('/api/v1/import/history')).body.total).toBe(0);
    const outbox = await app.runtime.deps.orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from outbox_event where workspace_id = ?`, [mine.workspaceId]);
    expect(outbox[0].n).toBe(1); // the fixture's company_created only
  });

  it('checks what only the service knows: required custom fields and references', async () => {
    const mine = await app.tenant();
    await createVia(mine.http, '/api/v1/custom-fields', {
      entityType: 'lead',
      key: 'region',
      label: 'Region',
      type: 'select',
      options: [{ value: 'north', label: 'North' }],
      required: true,
    });
    const res = await mine.http.post('/api/v1/import/validate', {
      entityType: 'lead',
      rows: [
        { title: 'ok', customFields: { region: 'north' } },
        { title: 'missing' },
        { title: 'wrong', customFields: { region: 'south' } },
        { title: 'ref', personRef: '0123456789abcdef01234567' },
      ],
    });
    expect(res.body.data).toMatchObject({ created: 1, failed: 3 });
    expect(res.body.data.errors.map((e: any) => e.errors[0].path)).toEqual([
      'customFields.region',
      'customFields.region',
      'personRef',
    ]);
    expect(await total(mine, 'leads')).toBe(0);
  });

  it.each([
    ['unknown entityType', { entityType: 'tickets', rows: [{}] }, /entityType/],
    ['missing entityType', { rows: [{}] }, /entityType/],
    ['rows missing', { entityType: 'company' }, /rows/],
  ])('400 for %s', async (_label, body, message) => {
    expectError(await t.http.post('/api/v1/import/validate', body), 400, message);
  });
});

describe('limits, access and history', () => {
  it.each([
    ['no rows', { rows: [] }, /rows: at least 1 row/],
    ['5001 rows', { rows: Array.from({ length: 5001 }, () => ({})) }, /rows: at most 5000 rows/],
    ['rows not an array', { rows: { name: 'x' } }, /rows/],
    [
      'unknown dedupe',
      { rows: [{ name: 'x' }], options: { dedupe: 'merge' } },
      /dedupe: must be one of skip, update, none/,
    ],
  ])('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/import/companies', body, message, () => total(t, 'companies'));
  });

  it('accepts 5000 rows; history stores the first 100 errors, newest run first, paginated', async () => {
    const mine = await app.tenant();
    await mine.http.post('/api/v1/import/people', { rows: [{ firstName: 'First run' }] });
    const big = await mine.http.post('/api/v1/import/companies', { rows: Array.from({ length: 5000 }, () => ({})) });
    expectOk(big, { total: 5000, failed: 5000 });
    expect(big.body.data.errors).toHaveLength(5000);
    const history = await mine.http.get('/api/v1/import/history?limit=1');
    expect(history.body).toMatchObject({ page: 1, limit: 1, total: 2 });
    const [run] = history.body.data;
    expect(run).toMatchObject({
      _id: big.body.data.importId,
      entityType: 'company',
      dedupe: 'skip',
      total: 5000,
      created: 0,
      failed: 5000,
      userId: mine.userId,
    });
    expect(run.errors).toHaveLength(100);
    expect(Date.parse(run.finishedAt)).toBeGreaterThanOrEqual(Date.parse(run.startedAt));
    const older = (await mine.http.get('/api/v1/import/history?limit=1&page=2')).body.data[0];
    expect(older).toMatchObject({ entityType: 'person', created: 1, failed: 0, errors: [] });
    expect((await mine.http.get('/api/v1/import/history?limit=101')).status).toBe(400);
  });

  it('needs the import scope and the admin or owner role', async () => {
    const writer = await app.key(t.workspaceId, ['read', 'write'], 'owner');
    const member = await app.key(t.workspaceId, ['import'], 'member');
    const admin = await app.key(t.workspaceId, ['import'], 'admin');
    for (const [method, path, body] of [
      ['POST', '/api/v1/import/companies', { rows: [{ name: 'Scoped' }] }],
      ['POST', '/api/v1/import/validate', { entityType: 'company', rows: [{ name: 'Scoped' }] }],
      ['GET', '/api/v1/import/history', undefined],
    ] as const) {
      expect((await writer.request(method, path, body)).status).toBe(403);
      const denied = await member.request(method, path, body);
      expectError(denied, 403, /admin or owner|owner or admin/);
      expect((await admin.request(method, path, body)).status).toBe(200);
    }
  });
});
