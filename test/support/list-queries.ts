// The query checks the record lists with the same parameters share (companies, leads): the date filters and
// their aliases, the 400s for bad parameters and the largest page.
import type { HttpClient, HttpResult, TestApp } from './app';
import { expectError } from './expect';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * In a new workspace: A, then (a mark later) B, then A updated with `update`. updatedSince=mark lists B then A
 * (oldest change first, by `label`); each dateFrom alias at the mark lists B, each dateTo alias lists A.
 * Resolves to that workspace's client.
 */
export async function expectDateFilters(
  app: TestApp,
  path: string,
  label: 'name' | 'title',
  create: (http: HttpClient, body: Record<string, unknown>) => Promise<HttpResult>,
  update: Record<string, unknown>,
): Promise<HttpClient> {
  const { http } = await app.tenant();
  const a = (await create(http, { [label]: 'A' })).body.data;
  await pause(20);
  const mark = encodeURIComponent(new Date().toISOString());
  await pause(20);
  const b = (await create(http, { [label]: 'B' })).body.data;
  await http.put(`${path}/${a._id}`, update);
  const since = await http.get(`${path}?updatedSince=${mark}`);
  expect(since.body.data.map((r: Record<string, unknown>) => r[label])).toEqual(['B', 'A']);
  const aliases: [string[], string][] = [
    [['dateFrom', 'startDate', 'from'], b._id],
    [['dateTo', 'endDate', 'to'], a._id],
  ];
  for (const [keys, id] of aliases)
    for (const key of keys) {
      const res = await http.get(`${path}?${key}=${mark}`);
      expect([key, res.body.data.map((r: { _id: string }) => r._id)]).toEqual([key, [id]]);
    }
  return http;
}

/**
 * Tests of the list `path` (read with `http()`): a limit over `max`, limit and page 0, an unknown view or field and a
 * malformed updatedSince, and each of the list's own `bad` queries, answer 400 with an error matching the pattern;
 * limit=`max` is accepted and echoed (`what`'s maximum).
 */
export function itChecksListQueries(
  http: () => HttpClient,
  path: string,
  bad: [string, RegExp][],
  max: number,
  what: string,
): void {
  const common: [string, RegExp][] = [
    [`limit=${max + 1}`, new RegExp(`limit must be at most ${max}`)],
    ['limit=0', /limit must be at least 1/],
    ['page=0', /page must be at least 1/],
    ['view=tiny', /view/],
    ['fields=nope', /unknown field/],
    ['updatedSince=yesterday', /updatedSince/],
  ];
  it.each([...common, ...bad])('400 for ?%s', async (qs, message) => {
    expectError(await http().get(`${path}?${qs}`), 400, message);
  });

  it(`accepts limit=${max} (the ${what} maximum)`, async () => {
    const res = await http().get(`${path}?limit=${max}`);
    expect(res.status).toBe(200);
    expect(res.body.limit).toBe(max);
  });
}
