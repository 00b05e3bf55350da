import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
const ids: Record<string, Record<string, string>> = { company: {}, person: {}, lead: {}, deal: {} };

// The same four records for every entity type: companies/people store pairs, leads/deals maps.
const RECORDS: Record<string, Record<string, unknown>> = {
  a: { segment: 'SMB', seats: 5, renewal: '2026-03-01', regions: ['eu'], note: 'Loves Coffee', active: true },
  b: { segment: 'Enterprise', seats: 250, renewal: '2027-06-15', regions: ['eu', 'us'], active: false },
  c: { segment: 'SMB', seats: 40, note: 'tea only' },
  d: {},
};
const PATHS = {
  company: ['/api/v1/companies', 'name'],
  person: ['/api/v1/people', 'firstName'],
  lead: ['/api/v1/leads', 'title'],
  deal: ['/api/v1/deals', 'title'],
} as const;

withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  for (const [type, [path, nameField]] of Object.entries(PATHS)) {
    for (const [label, customFields] of Object.entries(RECORDS)) {
      const res = await t.http.post(path, { [nameField]: label, customFields });
      if (res.status !== 201) throw new Error(JSON.stringify(res.body));
      ids[type]![label] = res.body.data._id;
    }
  }
});

const search = (entityType: string, filters: unknown[], extra: Record<string, unknown> = {}) =>
  t.http.post('/api/v1/custom-fields/search', { entityType, filters, ...extra });

const CASES: [string, unknown[], string[]][] = [
  ['equals text', [{ key: 'segment', operator: 'equals', value: 'SMB' }], ['a', 'c']],
  ['equals is case-sensitive', [{ key: 'segment', operator: 'equals', value: 'smb' }], []],
  ['equals number', [{ key: 'seats', operator: 'equals', value: 250 }], ['b']],
  ['equals boolean', [{ key: 'active', operator: 'equals', value: false }], ['b']],
  ['equals does not coerce "5" to 5', [{ key: 'seats', operator: 'equals', value: '5' }], []],
  [
    'not_equals (records without the key do not match)',
    [{ key: 'segment', operator: 'not_equals', value: 'SMB' }],
    ['b'],
  ],
  ['contains text, case-insensitive', [{ key: 'note', operator: 'contains', value: 'coffee' }], ['a']],
  ['contains: % is literal', [{ key: 'note', operator: 'contains', value: '%' }], []],
  ['contains element of a multi_select', [{ key: 'regions', operator: 'contains', value: 'us' }], ['b']],
  ['greater_than number', [{ key: 'seats', operator: 'greater_than', value: 5 }], ['b', 'c']],
  ['less_than number', [{ key: 'seats', operator: 'less_than', value: 41 }], ['a', 'c']],
  ['greater_than date', [{ key: 'renewal', operator: 'greater_than', value: '2026-12-31' }], ['b']],
  ['less_than date', [{ key: 'renewal', operator: 'less_than', value: '2026-03-02T00:00:00Z' }], ['a']],
  ['greater_than ignores non-numbers', [{ key: 'segment', operator: 'greater_than', value: 0 }], []],
  ['exists', [{ key: 'note', operator: 'exists' }], ['a', 'c']],
  ['not_exists', [{ key: 'note', operator: 'not_exists' }], ['b', 'd']],
  ['in scalars', [{ key: 'seats', operator: 'in', value: [5, 40, 999] }], ['a', 'c']],
  ['in matches any element of an array', [{ key: 'regions', operator: 'in', value: ['us', 'apac'] }], ['b']],
  [
    'every filter must match (AND)',
    [
      { key: 'segment', operator: 'equals', value: 'SMB' },
      { key: 'seats', operator: 'greater_than', value: 10 },
    ],
    ['c'],
  ],
  ['unknown key matches nothing', [{ key: 'nothing', operator: 'exists' }], []],
  ['quotes in values are data, not SQL', [{ key: "x') or 1=1 --", operator: 'equals', value: "' or '1'='1" }], []],
];

describe.each(Object.keys(PATHS))('POST /api/v1/custom-fields/search on %s', (entityType) => {
  it.each(CASES)('%s', async (_label, filters, expected) => {
    const res = await search(entityType, filters, { limit: 100 });
    expect(res.status).toBe(200);
    const byId = Object.fromEntries(Object.entries(ids[entityType]!).map(([label, id]) => [id, label]));
    expect(res.body.data.map((r: any) => byId[r._id]).sort()).toEqual(expected);
    expect(res.body.total).toBe(expected.length);
  });
});

describe('search results and paging', () => {
  it('returns full records newest first with page, limit, total', async () => {
    const filters = [{ key: 'segment', operator: 'exists' }];
    const page1 = await search('company', filters, { limit: 1 });
    expect(page1.body).toMatchObject({ page: 1, limit: 1, total: 3 });
    expect(page1.body.data[0]._id).toBe(ids.company!.c);
    expect(page1.body.data[0].customFields).toEqual([
      { name: 'segment', value: 'SMB' },
      { name: 'seats', value: 40 },
      { name: 'note', value: 'tea only' },
    ]);
    const page3 = await search('company', filters, { limit: 1, page: 3 });
    expect(page3.body.data[0]._id).toBe(ids.company!.a);
    const lead = await search('lead', [{ key: 'seats', operator: 'equals', value: 5 }]);
    expect(lead.body.data[0]).toMatchObject({ _id: ids.lead!.a, title: 'a', customFields: RECORDS.a });
  });

  it("never returns another workspace's records", async () => {
    const other = await app.tenant();
    const res = await other.http.post('/api/v1/custom-fields/search', {
      entityType: 'company',
      filters: [{ key: 'segment', operator: 'exists' }],
    });
    expect(res.body).toMatchObject({ data: [], total: 0 });
  });

  const filter = { key: 'seats', operator: 'exists' };
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing entityType', { filters: [filter] }, /entityType/],
    ['entityType project', { entityType: 'project', filters: [filter] }, /entityType/],
    ['no filters', { entityType: 'company', filters: [] }, /at least one filter/],
    ['filters missing', { entityType: 'company' }, /filters/],
    ['21 filters', { entityType: 'company', filters: Array.from({ length: 21 }, () => filter) }, /at most 20 filters/],
    [
      'unknown operator',
      { entityType: 'company', filters: [{ key: 'seats', operator: 'like', value: 1 }] },
      /operator/,
    ],
    ['empty key', { entityType: 'company', filters: [{ key: '', operator: 'exists' }] }, /key/],
    ['equals without value', { entityType: 'company', filters: [{ key: 'seats', operator: 'equals' }] }, /value/],
    [
      'equals with an array',
      { entityType: 'company', filters: [{ key: 'seats', operator: 'equals', value: [1] }] },
      /value/,
    ],
    [
      'contains with a number',
      { entityType: 'company', filters: [{ key: 'note', operator: 'contains', value: 5 }] },
      /value/,
    ],
    [
      'greater_than with text',
      { entityType: 'company', filters: [{ key: 'seats', operator: 'greater_than', value: 'big' }] },
      /number or an ISO 8601 date/,
    ],
    ['in with a scalar', { entityType: 'company', filters: [{ key: 'seats', operator: 'in', value: 5 }] }, /array/],
    [
      'in with 101 values',
      {
        entityType: 'company',
        filters: [{ key: 'seats', operator: 'in', value: Array.from({ length: 101 }, (_, i) => i) }],
      },
      /1 to 100/,
    ],
    ['limit 101', { entityType: 'company', filters: [filter], limit: 101 }, /limit/],
    ['page 0', { entityType: 'company', filters: [filter], page: 0 }, /page/],
  ];
  it.each(bad)('400 for %s', async (_label, body, message) => {
    expectError(await t.http.post('/api/v1/custom-fields/search', body), 400, message);
  });

  it('accepts exactly 20 filters and 100 in-values', async () => {
    expect(
      (
        await search(
          'company',
          Array.from({ length: 20 }, () => filter),
        )
      ).status,
    ).toBe(200);
    expect(
      (await search('company', [{ key: 'seats', operator: 'in', value: Array.from({ length: 100 }, (_, i) => i) }]))
        .status,
    ).toBe(200);
  });

  it('GET describes the search: fields, operators and an example', async () => {
    const res = await t.http.get('/api/v1/custom-fields/search');
    expectOk(res, { method: 'POST', path: '/api/v1/custom-fields/search' });
    expect(res.body.data.operators.map((o: any) => o.name)).toEqual([
      'equals',
      'not_equals',
      'contains',
      'greater_than',
      'less_than',
      'exists',
      'not_exists',
      'in',
    ]);
    expect(res.body.data.body.entityType.enum).toEqual(['company', 'person', 'lead', 'deal']);
    // The example is a working request.
    expect((await t.http.post('/api/v1/custom-fields/search', res.body.data.example.request)).status).toBe(200);
  });
});
