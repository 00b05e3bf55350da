import type { Tenant } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { expectError } from '../../../test/support/expect';

// Record writes are validated against the workspace's definitions (companies, people, leads, deals).
let t: Tenant;
withTestApp((s) => ({ t } = s));
beforeAll(async () => {
  for (const entityType of ['company', 'person', 'lead', 'deal']) {
    const defs = [
      { key: 'seats', type: 'number' },
      { key: 'tier', type: 'select', options: ['gold', 'silver'] },
      { key: 'regions', type: 'multi_select', options: ['eu', 'us'] },
      { key: 'renewal', type: 'date' },
      { key: 'active', type: 'checkbox' },
      { key: 'site', type: 'url' },
      { key: 'billing', type: 'email' },
      { key: 'hotline', type: 'phone' },
      { key: 'code', type: 'text', required: true },
    ];
    for (const def of defs) {
      const res = await t.http.post('/api/v1/custom-fields', { entityType, label: def.key, ...def });
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    }
  }
});

const TYPES = [
  { type: 'company', path: '/api/v1/companies', base: { name: 'Acme' } },
  { type: 'person', path: '/api/v1/people', base: { firstName: 'Ada' } },
  { type: 'lead', path: '/api/v1/leads', base: { title: 'Lead' } },
  { type: 'deal', path: '/api/v1/deals', base: { title: 'Deal' } },
] as const;

const WRONG: [string, Record<string, unknown>][] = [
  ['seats', { seats: 'many' }],
  ['tier', { tier: 'bronze' }],
  ['regions', { regions: ['eu', 'asia'] }],
  ['regions', { regions: 'eu' }],
  ['renewal', { renewal: 'next year' }],
  ['active', { active: 'yes' }],
  ['site', { site: 'ftp://example.com' }],
  ['billing', { billing: 'not-an-email' }],
  ['hotline', { hotline: 'call me' }],
  ['code', { code: 42 }],
];

describe.each(TYPES)('$type writes', ({ path, base }) => {
  const valid = {
    code: 'X1',
    seats: 5,
    tier: 'gold',
    regions: ['eu', 'us'],
    renewal: '2027-01-31',
    active: true,
    site: 'https://acme.test',
    billing: 'ap@acme.test',
    hotline: '+45 12 34 56 78',
  };

  it('accepts values that fit their definitions', async () => {
    expect((await t.http.post(path, { ...base, customFields: valid })).status).toBe(201);
    // Creation accepts name/value pairs as well (spec: Conventions).
    const pairs = Object.entries(valid).map(([name, value]) => ({ name, value }));
    expect((await t.http.post(path, { ...base, customFields: pairs })).status).toBe(201);
  });

  it.each(WRONG)('create: 400 naming customFields.%s for a wrong value', async (key, wrong) => {
    expectError(
      await t.http.post(path, { ...base, customFields: { ...valid, ...wrong } }),
      400,
      new RegExp(`customFields\\.${key}`),
    );
  });

  it('create: 400 when a required definition has no value; undefined keys are free-form', async () => {
    const { code: _code, ...withoutCode } = valid;
    const missing = await t.http.post(path, { ...base, customFields: withoutCode });
    expectError(missing, 400, /customFields\.code: is required/);
    expect((await t.http.post(path, base)).status).toBe(400);
    expect((await t.http.post(path, { ...base, customFields: { ...valid, anything: 'free' } })).status).toBe(201);
  });

  it('update: wrong values are 400 and leave the record unchanged; the required field need not be resent', async () => {
    const record = (await t.http.post(path, { ...base, customFields: valid })).body.data;
    for (const [key, wrong] of WRONG) {
      expectError(
        await t.http.put(`${path}/${record._id}`, { customFields: wrong }),
        400,
        new RegExp(`customFields\\.${key}`),
      );
    }
    expect((await t.http.get(`${path}/${record._id}`)).body.data.customFields).toEqual(record.customFields);
    expect((await t.http.put(`${path}/${record._id}`, { customFields: { seats: 7 } })).status).toBe(200);
  });
});
