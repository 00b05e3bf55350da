// The export writes each row as JSON text from per-value pieces (export.service.ts valueOf, Node adds the keys): the
// text must be exactly what json_build_object writes for the same fields, for strings that need escaping, floats
// that JSON cannot hold (NaN, ±Infinity: quoted), arrays, jsonb and nulls.
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';

let app: TestApp;
let t: Tenant;
beforeAll(async () => {
  app = await startTestApp();
  t = await app.tenant('Export JSON text');
});
afterAll(() => app.close());

const ROWS: [title: string, value: string | null, tags: string[], customFields: string][] = [
  ['quote " backslash \\ newline \n tab \t ctrl \u0001 \u001f del \u007f', 'NaN', ['a"b', 'c\\d'], '{"x": "y\\"z"}'],
  ["é ü 😀 'single'", 'Infinity', [], '{"n": 1.50, "deep": {"list": [1, null, "s"]}}'],
  ['plain', '-Infinity', ['one'], '{}'],
  ['big', '1e100', [], '{"a": true}'],
  ['small', '0.1', [], '[]'],
  ['none', null, [], 'null'],
];

it('writes every row as json_build_object would: escaping, NaN and Infinity, arrays, jsonb, null', async () => {
  const conn = app.runtime.deps.orm.em.fork().getConnection();
  for (const [i, [title, value, tags, custom]] of ROWS.entries()) {
    await conn.execute(
      `insert into deal (id, workspace_id, created_at, updated_at, title, value, custom_fields, tags, status)
       values (?, ?, now(), now(), ?, ?::double precision, ?::jsonb,
         array(select jsonb_array_elements_text(?::jsonb)), 'open')`,
      [`${'e'.repeat(20)}${String(i).padStart(4, '0')}`, t.workspaceId, title, value, custom, JSON.stringify(tags)],
    );
  }
  const fields = ['title', 'value', 'probability', 'tags', 'customFields', 'status'];
  const res = await fetch(`${t.http.baseUrl}/api/v1/export/deals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.http.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ fields, limit: 100 }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  const [expected] = await conn.execute<{ data: string }[]>(
    `select '[' || string_agg(json_build_object('_id', id, 'title', title, 'value', value, 'probability', probability,
       'tags', tags, 'customFields', custom_fields, 'status', status)::text, ',' order by id) || ']' as data
       from deal where workspace_id = ?`,
    [t.workspaceId],
  );
  expect(text.startsWith(`{"data":${expected!.data},`)).toBe(true);
  const rows = (JSON.parse(text) as { data: { title: string; value: unknown }[] }).data;
  expect(rows.map((r) => [r.title, r.value])).toEqual(
    ROWS.map(([title, value]) => [title, value === null ? null : /^[\d.e-]+$/.test(value) ? Number(value) : value]),
  );
});
