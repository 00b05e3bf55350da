// The export writes timestamps from Postgres' plain timestamp text (rearranged in Node) and falls back to
// to_char outside years 1-9999: every value must come out as to_json(to_char(…)) wrote it before.
import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';

let app: TestApp;
let t: Tenant;
beforeAll(async () => {
  app = await startTestApp();
  t = await app.tenant('Export dates');
});
afterAll(() => app.close());

const VALUES = [
  '2026-11-27 05:49:02+00',
  '2026-11-27 05:49:02.1+00',
  '2026-11-27 05:49:02.12+00',
  '2026-11-27 05:49:02.000001+00',
  '2026-11-27 05:49:02.999999+00',
  '2000-02-29 23:59:59.9995+00',
  '2026-03-29 02:30:00.5+02',
  '1969-12-31 23:59:59.5+00',
  '0001-01-01 00:00:00+00',
  '0001-01-02 00:00:00.000001+00',
  '9999-12-30 00:00:00+00',
  '9999-12-31 23:59:59.999999+00',
  '0044-03-15 12:00:00+00 BC',
  'infinity',
  null,
];

it('writes every timestamp exactly as to_json(to_char(…)) does: precision, time zones, years 1 and 9999, BC, infinity, null', async () => {
  const conn = app.runtime.deps.orm.em.fork().getConnection();
  for (const [i, value] of VALUES.entries()) {
    await conn.execute(
      `insert into deal (id, workspace_id, created_at, updated_at, title, custom_fields, tags, status, won_date)
       values (?, ?, now(), now(), ?, '{}', '{}', 'open', ?::timestamptz)`,
      [`${'d'.repeat(20)}${String(i).padStart(4, '0')}`, t.workspaceId, `Date ${i}`, value],
    );
  }
  const res = await t.http.post('/api/v1/export/deals', { fields: ['wonDate'], limit: 100 });
  expect(res.status).toBe(200);
  const expected = await conn.execute<{ id: string; w: string | null }[]>(
    `select id, to_json(to_char(won_date at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) as w
       from deal where workspace_id = ? order by id`,
    [t.workspaceId],
  );
  expect(expected).toHaveLength(VALUES.length);
  expect(res.body.data.map((r: { _id: string; wonDate: string | null }) => [r._id, r.wonDate])).toEqual(
    expected.map((r) => [r.id, r.w]),
  );
  // The fast path and the fallback both appear in these rows.
  expect(expected.map((r) => r.w)).toEqual(
    expect.arrayContaining(['2026-11-27T05:49:02.999Z', '0001-01-01T00:00:00.000Z', null]),
  );
});
