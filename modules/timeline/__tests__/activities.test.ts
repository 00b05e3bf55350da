import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { factories, makeCompany } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectRejectedCreate } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let companyId: string;
withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  companyId = (await makeCompany(t.http)).body.data._id;
});

const MISSING = '0123456789abcdef01234567';
const countActivities = async (): Promise<number> => (await t.http.get('/api/v1/activities?limit=1')).body.total;

describe('POST /api/v1/activities', () => {
  it('creates an activity with every field; title is an alias of summary', async () => {
    const [person, deal, lead] = [
      await factories.person!(t.http),
      await factories.deal!(t.http),
      await factories.lead!(t.http),
    ];
    // Stored and answered as sent.
    const echoed = {
      type: 'meeting',
      title: 'Kick-off',
      description: 'Agenda…',
      companyId,
      personId: person,
      dealId: deal,
      leadId: lead,
      metadata: { room: 'A', attendees: 3 },
    };
    const res = await t.http.post('/api/v1/activities', { ...echoed, date: '2030-03-01T09:30:00Z' });
    const a = expectCreated(res, {
      ...echoed,
      summary: 'Kick-off',
      date: '2030-03-01T09:30:00.000Z',
      system: false,
      ownerId: t.userId,
      userId: t.userId,
    });
    expect((await t.http.get(`/api/v1/activities/${a._id}`)).body.data).toEqual(a);
    expect((await eventsFor(app.runtime.deps.orm, a._id)).map((e) => e.type)).toEqual(['activity_created']);
    // It is on the company's timeline.
    const timeline = await t.http.get(`/api/v1/companies/${companyId}/activities`);
    expect(timeline.body.data.map((x: any) => x._id)).toContain(a._id);
  });

  it('date defaults to now; summary wins over title; entityType/entityId fill the link column', async () => {
    const before = Date.now();
    const res = await t.http.post('/api/v1/activities', {
      type: 'call',
      summary: 'S',
      title: 'T',
      entityType: 'company',
      entityId: companyId,
    });
    expectCreated(res, { summary: 'S', entityType: 'company', entityId: companyId, companyId });
    expect(Date.parse(res.body.data.date)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('noteRef must name an existing note', async () => {
    const note = (await t.http.post('/api/v1/notes', { content: 'n', company: companyId })).body.data;
    const ok = await t.http.post('/api/v1/activities', { type: 'follow_up', noteRef: note._id });
    expect(ok.status).toBe(201);
    expect(ok.body.data.noteRef).toBe(note._id);
  });

  it('accepts the boundaries: 60-char type, metadata of exactly 16384 JSON characters', async () => {
    const filler = 'x'.repeat(16_384 - '{"k":""}'.length);
    const res = await t.http.post('/api/v1/activities', { type: 't'.repeat(60), metadata: { k: filler } });
    expect(res.status).toBe(201);
  });

  const bad: [string, () => Record<string, unknown>, RegExp][] = [
    ['missing type', () => ({ summary: 'x' }), /type/],
    ['empty type', () => ({ type: '  ' }), /type: is required/],
    ['type over 60', () => ({ type: 't'.repeat(61) }), /type: must be at most 60/],
    ['unknown company', () => ({ type: 'call', companyId: MISSING }), /companyId: no company with id/],
    ['unknown person', () => ({ type: 'call', personId: MISSING }), /personId: no person with id/],
    ['unknown deal', () => ({ type: 'call', dealId: MISSING }), /dealId: no deal with id/],
    ['unknown lead', () => ({ type: 'call', leadId: MISSING }), /leadId: no lead with id/],
    ['unknown note', () => ({ type: 'call', noteRef: MISSING }), /noteRef: no note with id/],
    ['malformed companyId', () => ({ type: 'call', companyId: 'x' }), /companyId/],
    [
      'entityType without entityId',
      () => ({ type: 'call', entityType: 'company' }),
      /entityId: entityType and entityId go together/,
    ],
    ['entityId without entityType', () => ({ type: 'call', entityId: MISSING }), /entityType/],
    [
      'unknown entityType',
      () => ({ type: 'call', entityType: 'planet', entityId: MISSING }),
      /entityType: must be one of company, person, lead, deal/,
    ],
    [
      'unknown entity',
      () => ({ type: 'call', entityType: 'person', entityId: MISSING }),
      /personId: no person with id/,
    ],
    [
      'entityId conflicting with companyId',
      () => ({ type: 'call', companyId, entityType: 'company', entityId: MISSING }),
      /entityId: conflicts with companyId/,
    ],
    ['date not ISO', () => ({ type: 'call', date: 'yesterday' }), /date/],
    ['metadata not an object', () => ({ type: 'call', metadata: 'x' }), /metadata/],
    [
      'metadata over 16384 characters',
      () => ({ type: 'call', metadata: { k: 'x'.repeat(16_384 - 7) } }),
      /metadata: must be at most 16384 characters as JSON/,
    ],
    ['ownerId not a user here', () => ({ type: 'call', ownerId: MISSING }), /ownerId: no user with id/],
    ['summary over 1000', () => ({ type: 'call', summary: 's'.repeat(1001) }), /summary/],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/activities', body(), message, countActivities);
  });

  it('a record of another workspace is unknown (400)', async () => {
    const other = await app.tenant();
    const foreign = await factories.company!(other.http);
    const res = await t.http.post('/api/v1/activities', { type: 'call', companyId: foreign });
    expect(res.status).toBe(400);
  });
});

describe('GET /api/v1/activities', () => {
  let mine: Tenant;
  let company: string;
  let person: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    mine = await app.tenant();
    company = (await makeCompany(mine.http)).body.data._id; // writes a system row (record_created)
    person = await factories.person!(mine.http);
    const mk = async (key: string, body: Record<string, unknown>) => {
      ids[key] = (await mine.http.post('/api/v1/activities', body)).body.data._id;
    };
    await mk('jan', { type: 'meeting', summary: 'Quarterly review', companyId: company, date: '2030-01-15T10:00:00Z' });
    await mk('feb', {
      type: 'call',
      summary: 'Follow-up call',
      personId: person,
      date: '2030-02-15T10:00:00Z',
      description: 'pricing questions',
    });
    await mk('mar', { type: 'email', summary: 'Sent offer', companyId: company, date: '2030-03-15T10:00:00Z' });
  });
  const list = async (qs = '') => (await mine.http.get(`/api/v1/activities?${qs}`)).body;

  it('lists user activities newest date first (no record-history rows) with view in the envelope', async () => {
    const body = await list();
    expect(body).toMatchObject({ page: 1, limit: 20, total: 3, view: 'full' });
    expect(body.data.map((a: any) => a._id)).toEqual([ids.mar, ids.feb, ids.jan]);
    expect(body.data.every((a: any) => a.system === false)).toBe(true);
    const feed = await mine.http.get(`/api/v1/companies/${company}/activity-feed`);
    expect(feed.body.data.map((a: any) => a.type)).toContain('record_created');
  });

  it.each([
    ['type=call', ['feb']],
    ['companyId=COMPANY', ['mar', 'jan']],
    ['personId=PERSON', ['feb']],
    ['q=PRICING', ['feb']],
    ['q=offer', ['mar']],
    ['dateFrom=2030-02-01', ['mar', 'feb']],
    ['startDate=2030-02-01', ['mar', 'feb']],
    ['from=2030-02-01', ['mar', 'feb']],
    ['dateTo=2030-02-15', ['feb', 'jan']],
    ['endDate=2030-01-31', ['jan']],
    ['to=2030-01-15', ['jan']],
    ['dateFrom=2030-02-01&dateTo=2030-02-28', ['feb']],
    ['ownerId=OWNER', ['mar', 'feb', 'jan']],
    [`ownerId=${MISSING}`, []],
    [`dealId=${MISSING}`, []],
    [`leadId=${MISSING}`, []],
  ])('filters ?%s', async (qs, expected) => {
    const query = qs.replace('COMPANY', company).replace('PERSON', person).replace('OWNER', mine.userId);
    const body = await list(query);
    expect(body.data.map((a: any) => a._id)).toEqual(expected.map((k) => ids[k]));
  });

  it('updatedSince lists oldest change first; createdAfter filters on creation', async () => {
    const mark = new Date(Date.now() - 1).toISOString();
    const late = (await mine.http.post('/api/v1/activities', { type: 'note', date: '2029-01-01T00:00:00Z' })).body.data
      ._id;
    expect((await list(`updatedSince=${encodeURIComponent(mark)}`)).data.map((a: any) => a._id)).toEqual([late]);
    expect((await list(`createdAfter=${encodeURIComponent(mark)}`)).data.map((a: any) => a._id)).toEqual([late]);
  });

  it('view=summary returns the slim shape and echoes view', async () => {
    const body = await list('view=summary&limit=1');
    expect(body.view).toBe('summary');
    expect(Object.keys(body.data[0]).sort()).toEqual([
      '_id',
      'companyId',
      'date',
      'dealId',
      'leadId',
      'ownerId',
      'personId',
      'summary',
      'title',
      'type',
    ]);
  });

  it.each([
    ['unknown=1', /unknown|unrecognized/i, /unknown/],
    ['fields=type', /fields/, /fields/],
    ['sortBy=date', /sortBy/, /sortBy/],
    ['limit=101', /limit must be at most 100/, null],
    ['page=0', /page/, null],
    ['view=tiny', /view/, null],
    ['dateFrom=soon', /dateFrom/, null],
    ['companyId=abc', /companyId/, null],
  ])('400 for ?%s (strict list, naming the parameter)', async (qs, message, names) => {
    const res = await mine.http.get(`/api/v1/activities?${qs}`);
    expectError(res, 400, message);
    if (names) expect(res.body.error).toMatch(names);
  });

  it('accepts limit=100', async () => {
    expect((await mine.http.get('/api/v1/activities?limit=100')).body.limit).toBe(100);
  });
});

describe('GET /api/v1/activities/:id', () => {
  it('returns record-history rows too, and 404 for unknown, malformed or foreign ids', async () => {
    const mine = await app.tenant();
    const company = (await makeCompany(mine.http)).body.data._id;
    const row = (await mine.http.get(`/api/v1/companies/${company}/activity-feed`)).body.data[0];
    expect((await mine.http.get(`/api/v1/activities/${row._id}`)).body.data).toMatchObject({
      type: 'record_created',
      system: true,
    });
    expect((await t.http.get(`/api/v1/activities/${row._id}`)).status).toBe(404);
    expect((await mine.http.get(`/api/v1/activities/${MISSING}`)).status).toBe(404);
    expectError(await mine.http.get('/api/v1/activities/xyz'), 404, /activity not found/);
  });
});
