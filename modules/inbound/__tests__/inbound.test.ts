import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const form = (body: string) => ({ raw: body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
const totals = async (tenant: Tenant) => {
  const [c, p, l, d] = await Promise.all(
    ['companies', 'people', 'leads', 'deals'].map((r) => tenant.http.get(`/api/v1/${r}?limit=1`)),
  );
  return { companies: c!.body.total, people: p!.body.total, leads: l!.body.total, deals: d!.body.total };
};

describe('POST /api/v1/inbound (JSON)', () => {
  it('creates company, person, lead and deal, linked, with events, and answers 201 with ids and actions', async () => {
    const res = await t.http.post('/api/v1/inbound', {
      companyName: 'Inbound Corp',
      companyCvr: '90000001',
      companyEmail: 'Info@InboundCorp.dk',
      companyPhone: '+45 11 22 33 44',
      personFirstName: 'Ida',
      personLastName: 'Holm',
      personEmail: 'ida@inboundcorp.dk',
      personPhone: '+45 55 66 77 88',
      personTitle: 'CTO',
      leadTitle: 'Website enquiry',
      leadSource: 'website',
      leadNotes: 'Wants a demo',
      dealTitle: 'Inbound Corp licence',
      dealValue: 12500,
      customFields: { budget: 'large' },
      tags: ['web', 'demo'],
    });
    expect(res.status).toBe(201);
    const { company, person, lead, deal } = res.body.data;
    for (const ref of [company, person, lead, deal])
      expect(ref).toMatchObject({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), action: 'created' });
    const c = (await t.http.get(`/api/v1/companies/${company._id}`)).body.data;
    expect(c).toMatchObject({
      name: 'Inbound Corp',
      cvr: '90000001',
      email: 'info@inboundcorp.dk',
      phone: '+45 11 22 33 44',
    });
    const p = (await t.http.get(`/api/v1/people/${person._id}`)).body.data;
    expect(p).toMatchObject({
      firstName: 'Ida',
      lastName: 'Holm',
      title: 'CTO',
      companyId: company._id,
      emails: [{ email: 'ida@inboundcorp.dk' }],
      phones: [{ phone: '+45 55 66 77 88' }],
    });
    const l = (await t.http.get(`/api/v1/leads/${lead._id}`)).body.data;
    expect(l).toMatchObject({
      title: 'Website enquiry',
      source: 'website',
      notes: 'Wants a demo',
      email: 'ida@inboundcorp.dk',
      companyRef: company._id,
      personRef: person._id,
      customFields: { budget: 'large' },
      tags: ['web', 'demo'],
      value: 12500,
    });
    const d = (await t.http.get(`/api/v1/deals/${deal._id}`)).body.data;
    expect(d).toMatchObject({
      title: 'Inbound Corp licence',
      value: 12500,
      company: company._id,
      personRef: person._id,
      leadRef: lead._id,
      tags: ['web', 'demo'],
      status: 'open',
    });
    expect((await eventsFor(app.runtime.deps.orm, company._id)).map((e) => e.type)).toContain('company_created');
    expect((await eventsFor(app.runtime.deps.orm, person._id)).map((e) => e.type)).toContain('person_created');
    expect((await eventsFor(app.runtime.deps.orm, lead._id)).map((e) => e.type)).toEqual([
      'lead_created',
      'tag_added',
      'tag_added',
    ]);
    expect((await eventsFor(app.runtime.deps.orm, deal._id)).map((e) => e.type)).toContain('deal_created');
  });

  it('generates the lead title, uses source "inbound" and creates no deal without deal fields', async () => {
    const res = await t.http.post('/api/v1/inbound', {
      personFirstName: 'Otto',
      personLastName: 'Berg',
      personEmail: 'otto@berg-gen.dk',
    });
    expect(res.status).toBe(201);
    expect(res.body.data.company).toBeNull();
    expect(res.body.data.deal).toBeNull();
    const lead = (await t.http.get(`/api/v1/leads/${res.body.data.lead._id}`)).body.data;
    expect(lead).toMatchObject({ title: 'Inbound: Otto Berg', source: 'inbound', personRef: res.body.data.person._id });
  });

  it('a person without a first name takes it from the e-mail; a deal from dealValue alone takes the lead title', async () => {
    const res = await t.http.post('/api/v1/inbound', { personEmail: 'kim.nord@nordgen.dk', dealValue: '2.500,75' });
    expect(res.status).toBe(201);
    const person = (await t.http.get(`/api/v1/people/${res.body.data.person._id}`)).body.data;
    expect(person.firstName).toBe('kim.nord');
    const deal = (await t.http.get(`/api/v1/deals/${res.body.data.deal._id}`)).body.data;
    expect(deal).toMatchObject({ title: 'Inbound: kim.nord', value: 2500.75 });
  });
});

describe('POST /api/v1/inbound (form-urlencoded and form-builder)', () => {
  it('accepts form-urlencoded with case-insensitive names, Danish amounts, comma tags and customFields[key]', async () => {
    const res = await t.http.post(
      '/api/v1/inbound',
      undefined,
      form(
        'Company_Name=Form+Co&person-email=Form%40FormCo.dk&First+Name=Fie&dealValue=1.234%2C50&tags=web,%20form&customFields%5Bseats%5D=12&message=Call+me',
      ),
    );
    expect(res.status).toBe(201);
    const { company, person, lead, deal } = res.body.data;
    expect((await t.http.get(`/api/v1/companies/${company._id}`)).body.data.name).toBe('Form Co');
    expect((await t.http.get(`/api/v1/people/${person._id}`)).body.data).toMatchObject({
      firstName: 'Fie',
      emails: [{ email: 'form@formco.dk' }],
    });
    expect((await t.http.get(`/api/v1/leads/${lead._id}`)).body.data).toMatchObject({
      customFields: { seats: '12' },
      tags: ['web', 'form'],
      notes: 'Call me',
    });
    expect((await t.http.get(`/api/v1/deals/${deal._id}`)).body.data.value).toBe(1234.5);
  });

  it('blank form inputs count as not given', async () => {
    const res = await t.http.post(
      '/api/v1/inbound',
      undefined,
      form('companyName=&personFirstName=Blank&personEmail=&dealValue=&tags='),
    );
    expectCreated(res, { company: null, deal: null, person: { action: 'created' } });
  });

  it.each([
    [
      'fields at the top level',
      (fields: unknown[]) => ({ formId: 'contact-2026', submittedAt: '2026-01-01T10:00:00Z', fields }),
    ],
    ['fields under data', (fields: unknown[]) => ({ data: { formName: 'contact-2026', fields } })],
  ])('accepts a form-builder payload with %s (name, key or label; typed values)', async (_label, wrap) => {
    const domain = `builder${Date.now()}.dk`;
    const res = await t.http.post(
      '/api/v1/inbound',
      wrap([
        { label: 'Company name', value: `Builder ${domain}` },
        { name: 'unknown-widget', label: 'E-mail', value: `ann@${domain}` },
        { key: 'personFirstName', value: 'Ann' },
        { key: 'customFields.seats', value: 5 },
        { name: 'Deal value', value: 2500 },
        { name: 'Tags', value: ['a', 'b'] },
        { name: 'Ignored field', value: 'x' },
      ]),
    );
    expect(res.status).toBe(201);
    const { company, person, lead, deal } = res.body.data;
    expect(company.action).toBe('created');
    expect((await t.http.get(`/api/v1/people/${person._id}`)).body.data).toMatchObject({
      firstName: 'Ann',
      emails: [{ email: `ann@${domain}` }],
      companyId: company._id,
    });
    expect((await t.http.get(`/api/v1/leads/${lead._id}`)).body.data).toMatchObject({
      source: 'contact-2026',
      customFields: { seats: 5 },
      tags: ['a', 'b'],
    });
    expect((await t.http.get(`/api/v1/deals/${deal._id}`)).body.data.value).toBe(2500);
  });
});

describe('company and person matching', () => {
  let m: Tenant;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    m = await app.tenant('Matching');
    ids.alpha = (
      await makeCompany(m.http, { name: 'Alpha ApS', cvr: '11111111', email: 'info@alpha.dk' })
    ).body.data._id;
    ids.beta = (await makeCompany(m.http, { name: 'Beta ApS', website: 'https://www.Beta.io/about' })).body.data._id;
    ids.gamma = (await makeCompany(m.http, { name: 'Gamma ApS' })).body.data._id;
    ids.gmail = (await makeCompany(m.http, { name: 'Gmail Shop', email: 'shop@gmail.com' })).body.data._id;
  });

  const table: [string, Record<string, unknown>, string | 'created', string | undefined][] = [
    ['exact cvr, whatever the name', { companyCvr: '11111111', companyName: 'Completely different' }, 'alpha', 'cvr'],
    ['cvr wins over domain', { companyCvr: '11111111', companyEmail: 'x@beta.io' }, 'alpha', 'cvr'],
    [
      'person e-mail domain = company e-mail domain',
      { companyName: 'Whatever', personEmail: 'jane@alpha.dk' },
      'alpha',
      'domain',
    ],
    ['company e-mail domain = website domain', { companyEmail: 'sales@beta.io' }, 'beta', 'domain'],
    ['case-insensitive exact name', { companyName: '  gamma aps ' }, 'gamma', 'name'],
    [
      'free-mail domains never match',
      { companyName: 'Fresh Co', personEmail: 'someone@gmail.com' },
      'created',
      undefined,
    ],
    [
      'a name match with another cvr is another company',
      { companyName: 'Alpha ApS', companyCvr: '22222222' },
      'created',
      undefined,
    ],
    ['a partial name is no match', { companyName: 'Gamma' }, 'created', undefined],
  ];
  it.each(table)('%s', async (_label, payload, expected, rule) => {
    const res = await m.http.post('/api/v1/inbound', payload);
    expect(res.status).toBe(201);
    if (expected === 'created') {
      expect(res.body.data.company.action).toBe('created');
      expect(Object.values(ids)).not.toContain(res.body.data.company._id);
    } else {
      expect(res.body.data.company).toMatchObject({ _id: ids[expected], matchedBy: rule });
      expect(['matched', 'updated']).toContain(res.body.data.company.action);
    }
  });

  it('company data without a name and without a match creates no company', async () => {
    const res = await m.http.post('/api/v1/inbound', { companyCvr: '99999999', companyEmail: 'x@nowhere-known.dk' });
    expect(res.status).toBe(201);
    expect(res.body.data.company).toBeNull();
  });

  it('a found company is only filled in (updated), never overwritten; unchanged is "matched"', async () => {
    const c = (await makeCompany(m.http, { name: 'Fill Co', cvr: '33333333', email: 'office@fill.dk' })).body.data;
    const first = await m.http.post('/api/v1/inbound', {
      companyCvr: '33333333',
      companyName: 'Renamed',
      companyEmail: 'new@fill.dk',
      companyPhone: '+45 70 70 70 70',
    });
    expect(first.body.data.company).toEqual({ _id: c._id, action: 'updated', matchedBy: 'cvr' });
    expect((await m.http.get(`/api/v1/companies/${c._id}`)).body.data).toMatchObject({
      name: 'Fill Co',
      email: 'office@fill.dk',
      phone: '+45 70 70 70 70',
    });
    expect((await eventsFor(app.runtime.deps.orm, c._id)).map((e) => e.type)).toEqual([
      'company_created',
      'company_updated',
    ]);
    const again = await m.http.post('/api/v1/inbound', { companyCvr: '33333333', companyPhone: '+45 11 11 11 11' });
    expect(again.body.data.company.action).toBe('matched');
  });

  it('finds a person by any of their e-mails (case-insensitive), fills empty fields, adds a new phone, links the company', async () => {
    const p = (
      await makePerson(m.http, {
        firstName: 'Maja',
        emails: [{ email: 'maja@home.dk' }, { email: 'maja@gamma-work.dk' }],
        phones: [{ phone: '+45 20 20 20 20' }],
      })
    ).body.data;
    const res = await m.http.post('/api/v1/inbound', {
      personEmail: 'MAJA@gamma-work.dk',
      personFirstName: 'Other',
      personLastName: 'Lund',
      personTitle: 'CFO',
      personPhone: '+45 30 30 30 30',
      companyName: 'Gamma ApS',
    });
    expect(res.body.data.person).toEqual({ _id: p._id, action: 'updated', matchedBy: 'email' });
    const after = (await m.http.get(`/api/v1/people/${p._id}`)).body.data;
    expect(after).toMatchObject({ firstName: 'Maja', lastName: 'Lund', title: 'CFO', companyId: ids.gamma });
    expect(after.phones.map((x: any) => x.phone)).toEqual(['+45 20 20 20 20', '+45 30 30 30 30']);
    const same = await m.http.post('/api/v1/inbound', { personEmail: 'maja@home.dk', personPhone: '+4530303030' });
    expect(same.body.data.person).toEqual({ _id: p._id, action: 'matched', matchedBy: 'email' });
  });
});

describe('atomicity and bad input', () => {
  it('a failing deal part (unknown stage) leaves no company, person or lead behind', async () => {
    const mine = await app.tenant();
    const before = await totals(mine);
    const res = await mine.http.post('/api/v1/inbound', {
      companyName: 'Atomic Co',
      personFirstName: 'Ada',
      personEmail: 'ada@atomic.dk',
      dealTitle: 'x',
      dealStageId: '0123456789abcdef01234567',
    });
    expectError(res, 400, /^dealStageId: /);
    expect(await totals(mine)).toEqual(before);
  });

  it('an unknown flow is 400 naming dealFlowId, nothing written', async () => {
    const mine = await app.tenant();
    const res = await mine.http.post('/api/v1/inbound', {
      companyName: 'Atomic Co',
      dealFlowId: '0123456789abcdef01234567',
    });
    expectError(res, 400, /^dealFlowId: /);
    expect(await totals(mine)).toEqual({ companies: 0, people: 0, leads: 0, deals: 0 });
  });

  const bad: [string, unknown, RegExp, Record<string, string>?][] = [
    ['dealValue "abc"', { companyName: 'X', dealValue: 'abc' }, /dealValue: must be a number/],
    ['dealValue "1,2,3"', { companyName: 'X', dealValue: '1,2,3' }, /dealValue/],
    ['negative dealValue', { companyName: 'X', dealValue: -5 }, /dealValue/],
    ['dealValue as boolean', { companyName: 'X', dealValue: true }, /dealValue/],
    ['companyName as number', { companyName: 5 }, /companyName: must be a string/],
    ['companyName over 300', { companyName: 'x'.repeat(301) }, /companyName: must be at most 300/],
    ['invalid personEmail', { personEmail: 'not-an-email' }, /personEmail/],
    ['tags as object', { companyName: 'X', tags: { a: 1 } }, /tags/],
    ['101 tags', { companyName: 'X', tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, /tags/],
    ['customFields as string', { companyName: 'X', customFields: 'x' }, /customFields/],
    ['malformed dealFlowId', { companyName: 'X', dealFlowId: 'xyz' }, /dealFlowId/],
    ['body is an array', [{ companyName: 'X' }], /body: must be an object/],
    ['no known field', { hello: 'world' }, /no inbound fields/],
    ['empty object', {}, /no inbound fields/],
    ['form-builder field not an object', { fields: ['x'] }, /fields\.0/],
  ];
  let clean: Tenant;
  beforeAll(async () => {
    clean = await app.tenant('Bad input');
  });
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    const res = await clean.http.post('/api/v1/inbound', body);
    expectError(res, 400, message);
    expect(await totals(clean)).toEqual({ companies: 0, people: 0, leads: 0, deals: 0 });
  });

  it('400 for an unsupported content type and a non-object text body', async () => {
    const multipart = await t.http.post('/api/v1/inbound', undefined, {
      raw: '--x\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expectError(multipart, 400, /unsupported content type/);
    const text = await t.http.post('/api/v1/inbound', undefined, {
      raw: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(400);
  });

  it('accepts JSON sent as text/plain, and limits exactly at the maximum', async () => {
    const res = await t.http.post('/api/v1/inbound', undefined, {
      raw: JSON.stringify({ companyName: 'n'.repeat(300), tags: Array.from({ length: 100 }, (_, i) => `t${i}`) }),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(201);
  });
});

describe('access and self-description', () => {
  it('needs the inbound scope (write is not enough); any role with the scope may post', async () => {
    const writer = await app.key(t.workspaceId, ['read', 'write']);
    expect((await writer.post('/api/v1/inbound', { companyName: 'Nope' })).status).toBe(403);
    expect((await writer.get('/api/v1/inbound')).status).toBe(403);
    expect((await writer.post('/api/v1/webhooks/connector', { firstName: 'Nope' })).status).toBe(403);
    const inbound = await app.key(t.workspaceId, ['inbound'], 'member');
    expect((await inbound.post('/api/v1/inbound', { companyName: 'Member Co' })).status).toBe(201);
  });

  it('GET /inbound describes formats, fields, matching rules and the answer', async () => {
    const res = await t.http.get('/api/v1/inbound');
    expect(res.status).toBe(200);
    expect(res.body.data.formats).toHaveLength(3);
    const names = res.body.data.fields.map((f: any) => f.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'companyName',
        'companyCvr',
        'personEmail',
        'leadTitle',
        'dealValue',
        'dealFlowId',
        'customFields',
        'tags',
      ]),
    );
    expect(res.body.data.rules.company).toMatch(/CVR/);
    expect(res.body.data.freeMailDomains).toContain('gmail.com');
  });
});

describe('POST /api/v1/webhooks/connector', () => {
  it('creates person, lead and deal; a second call finds the person by e-mail', async () => {
    const body = {
      firstName: 'Zed',
      lastName: 'Zap',
      email: 'zed@zapco.dk',
      phone: '+45 40 40 40 40',
      dealTitle: 'Zap deal',
      dealValue: 99,
      source: 'zapier',
    };
    const res = await t.http.post('/api/v1/webhooks/connector', body);
    expectCreated(res, {
      company: null,
      person: { action: 'created' },
      lead: { action: 'created' },
      deal: { action: 'created' },
    });
    const lead = (await t.http.get(`/api/v1/leads/${res.body.data.lead._id}`)).body.data;
    expect(lead).toMatchObject({
      title: 'Connector: Zed Zap',
      source: 'zapier',
      email: 'zed@zapco.dk',
      phone: '+45 40 40 40 40',
    });
    expect((await t.http.get(`/api/v1/deals/${res.body.data.deal._id}`)).body.data).toMatchObject({
      title: 'Zap deal',
      value: 99,
      leadRef: lead._id,
    });
    const again = await t.http.post('/api/v1/webhooks/connector', { email: 'ZED@zapco.dk', leadTitle: 'Second' });
    expect(again.body.data).toMatchObject({ person: { _id: res.body.data.person._id, action: 'matched' }, deal: null });
    expect((await t.http.get(`/api/v1/leads/${again.body.data.lead._id}`)).body.data.source).toBe('connector');
  });

  it.each([
    ['dealValue "abc"', { firstName: 'A', dealValue: 'abc' }, /dealValue/],
    ['email invalid', { email: 'nope' }, /email/],
    ['firstName as number', { firstName: 7 }, /firstName/],
    ['nothing given', {}, /no inbound fields/],
  ])('400 for %s, nothing written', async (_label, body, message) => {
    const before = await totals(t);
    const res = await t.http.post('/api/v1/webhooks/connector', body);
    expectError(res, 400, message);
    expect(await totals(t)).toEqual(before);
  });
});
