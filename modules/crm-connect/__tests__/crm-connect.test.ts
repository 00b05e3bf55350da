import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany, makeLead, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
const ids: Record<string, string> = {};
withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  ids.company = (
    await makeCompany(t.http, { name: 'Nordic Bikes', phone: '+45 70 20 30 40', email: 'Sales@Nordic.test' })
  ).body.data._id;
  ids.person = (
    await makePerson(t.http, {
      firstName: 'Ada',
      lastName: 'Lovelace',
      companyId: ids.company,
      phones: [{ phone: '(+45) 12.34.56.78', label: 'mobile' }],
      emails: [{ email: 'ada@nordic.test', label: 'work' }],
    })
  ).body.data._id;
  ids.lead = (
    await makeLead(t.http, { title: 'Website inquiry', phone: '0045 99 88 77 66', email: 'LEAD@inquiry.test' })
  ).body.data._id;
  // Same last 8 digits, other country: must not match an international number.
  ids.swede = (
    await makePerson(t.http, { firstName: 'Sven', phones: [{ phone: '+46 12 34 56 78', label: 'work' }] })
  ).body.data._id;
});

const lookup = (qs: string) => t.http.get(`/api/v1/crm-connect/lookup?${qs}`);

describe('GET /api/v1/crm-connect/lookup', () => {
  it.each([
    ['+4512345678', 'person', false],
    ['0045 12 34 56 78', 'person', false],
    ['12-34-56-78', 'person', true],
    ['+45 70203040', 'company', false],
    ['70 20 30 40', 'company', false],
    ['+45 99887766', 'lead', false],
    ['(99) 88.77.66', 'lead', false],
  ])('phone %s finds the %s (the +46 number too: %s)', async (phone, kind, swede) => {
    const res = await lookup(`phone=${encodeURIComponent(phone)}`);
    expect(res.status).toBe(200);
    const found = res.body.data.matches.map((m: any) => m._id);
    expect(found).toContain(ids[kind]);
    expect(found.includes(ids.swede)).toBe(swede);
  });

  it('a national number matches both international numbers sharing its last 8 digits, people first', async () => {
    const res = await lookup('phone=12345678');
    expect(res.body.data.matches).toEqual([
      expect.objectContaining({ entityType: 'person', _id: expect.any(String), matchedOn: 'phone' }),
      expect.objectContaining({ entityType: 'person', matchedOn: 'phone' }),
    ]);
    expect(res.body.data.matches.map((m: any) => m._id).sort()).toEqual([ids.person, ids.swede].sort());
  });

  it('returns { entityType, _id, name, matchedOn, value }', async () => {
    const res = await lookup('phone=%2B4512345678');
    expect(res.body.data.matches).toEqual([
      { entityType: 'person', _id: ids.person, name: 'Ada Lovelace', matchedOn: 'phone', value: '(+45) 12.34.56.78' },
    ]);
  });

  it.each([
    ['ADA@nordic.test', 'person', 'Ada Lovelace', 'ada@nordic.test'],
    ['sales@nordic.test', 'company', 'Nordic Bikes', 'sales@nordic.test'],
    ['lead@INQUIRY.test', 'lead', 'Website inquiry', 'lead@inquiry.test'],
  ])('e-mail %s finds the %s (case-insensitive)', async (email, kind, name, value) => {
    const res = await lookup(`email=${encodeURIComponent(email)}`);
    expect(res.body.data.matches).toEqual([{ entityType: kind, _id: ids[kind], name, matchedOn: 'email', value }]);
  });

  it('no match is an empty list; another workspace never matches', async () => {
    expect((await lookup('phone=87878787')).body.data.matches).toEqual([]);
    expect((await lookup('email=nobody%40nordic.test')).body.data.matches).toEqual([]);
    const other = await app.tenant();
    expect((await other.http.get('/api/v1/crm-connect/lookup?phone=%2B4512345678')).body.data.matches).toEqual([]);
  });

  it.each([
    ['', /exactly one of phone or email/],
    ['phone=12345678&email=a%40b.test', /exactly one of phone or email/],
    ['phone=abc', /phone: must be a phone number/],
    ['phone=123', /phone: must be a phone number/],
    [`phone=${'1'.repeat(51)}`, /phone: must be at most 50/],
    ['email=not-an-email', /email/],
  ])('400 for ?%s', async (qs, message) => {
    expectError(await lookup(qs), 400, message);
  });
});

describe('POST /api/v1/crm-connect/calls', () => {
  it("links the call to the person found by phone (and the person's company) and creates its activity", async () => {
    const res = await t.http.post('/api/v1/crm-connect/calls', {
      phone: '+45 12 34 56 78',
      direction: 'inbound',
      status: 'answered',
      duration: 42,
      startedAt: '2030-01-01T12:00:00Z',
      externalId: 'pbx-1',
    });
    expectCreated(res, {
      phone: '+45 12 34 56 78',
      personId: ids.person,
      companyId: ids.company,
      leadId: null,
      direction: 'inbound',
      status: 'answered',
      duration: 42,
      externalId: 'pbx-1',
    });
    const activity = (await t.http.get(`/api/v1/activities/${res.body.data.activityId}`)).body.data;
    expect(activity).toMatchObject({
      type: 'call',
      personId: ids.person,
      summary: 'Inbound call from +45 12 34 56 78',
    });
    expect((await eventsFor(app.runtime.deps.orm, res.body.data._id)).map((e) => e.type)).toEqual([
      'call_created',
      'call_answered',
    ]);
  });

  it('falls back to the company, then the lead; an unknown number logs an unlinked call', async () => {
    const company = await t.http.post('/api/v1/crm-connect/calls', { phone: '70203040' });
    expect(company.body.data).toMatchObject({ companyId: ids.company, personId: null, leadId: null });
    const lead = await t.http.post('/api/v1/crm-connect/calls', { phone: '+4599887766', subject: 'Inquiry' });
    expect(lead.body.data).toMatchObject({ leadId: ids.lead, companyId: null, personId: null, subject: 'Inquiry' });
    const unknown = await t.http.post('/api/v1/crm-connect/calls', { phone: 'anonymous' });
    expectCreated(unknown, { phone: 'anonymous', companyId: null, personId: null, leadId: null });
  });

  it('is idempotent on externalId: a repeat answers the stored call with 200 and writes nothing', async () => {
    const first = await t.http.post('/api/v1/crm-connect/calls', { phone: '70203040', externalId: 'pbx-dup' });
    expect(first.status).toBe(201);
    const total = (await t.http.get('/api/v1/calls?limit=1')).body.total;
    const again = await t.http.post('/api/v1/crm-connect/calls', {
      phone: '70203040',
      externalId: 'pbx-dup',
      status: 'missed',
    });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await t.http.get('/api/v1/calls?limit=1')).body.total).toBe(total);
    // Concurrent deliveries of one externalId store one call.
    const burst = await Promise.all(
      Array.from({ length: 4 }, () =>
        t.http.post('/api/v1/crm-connect/calls', { phone: '70203040', externalId: 'pbx-race' }),
      ),
    );
    expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(burst.map((r) => r.body.data._id)).size).toBe(1);
  });

  it.each([
    [{}, /phone/],
    [{ phone: '' }, /phone/],
    [{ phone: '1', direction: 'up' }, /direction/],
    [{ phone: '1', status: 'open' }, /status/],
    [{ phone: '1', duration: -1 }, /duration/],
    [{ phone: '1', startedAt: 'x' }, /startedAt/],
    [{ phone: '1', externalId: '' }, /externalId/],
  ])('400 for %j', async (body, message) => {
    expectError(await t.http.post('/api/v1/crm-connect/calls', body), 400, message);
  });
});
