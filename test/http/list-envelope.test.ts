import type { RouteDef } from '../../api/http/registry';
import { startTestApp, type Tenant, type TestApp } from '../support/app';

// Walks the live route list: every GET route without path parameters whose data is an array is a
// list, and every list answers { data, page, limit, total } (spec: Conventions) and pages.

let app: TestApp;
let t: Tenant;
beforeAll(async () => {
  app = await startTestApp();
  t = await app.tenant();
});
afterAll(() => app.close());

const label = (r: RouteDef): string => `${r.method} ${r.path}`;
/** Lists that also answer `view` (spec: deals, activities). */
const WITH_VIEW = ['/api/v1/deals', '/api/v1/activities'];
/** Required filters of lists that cannot be called bare. */
const REQUIRED_QUERY: Record<string, string> = {};

describe('list envelope', () => {
  it('every GET list route answers { data: [], page, limit, total } and honours page and limit', async () => {
    const candidates = app.runtime.routes.filter((r) => r.method === 'GET' && !/[:*]/.test(r.path));
    const lists: string[] = [];
    const failures: string[] = [];
    for (const r of candidates) {
      const extra = REQUIRED_QUERY[r.path] ? `&${REQUIRED_QUERY[r.path]}` : '';
      const res = await t.http.get(`${r.path}?page=1${extra}`);
      const first = await t.http.get(`${r.path}${extra ? `?${extra.slice(1)}` : ''}`);
      if (!Array.isArray(first.body?.data)) continue;
      lists.push(r.path);
      const body = first.body;
      const problems: string[] = [];
      for (const key of ['page', 'limit', 'total'] as const) if (typeof body[key] !== 'number') problems.push(`no numeric ${key}`);
      if (body.page !== 1) problems.push(`page defaults to ${body.page}, not 1`);
      if (WITH_VIEW.includes(r.path) && typeof body.view !== 'string') problems.push('no view');
      if (res.status !== 200) problems.push(`?page=1 → ${res.status}`);
      const paged = await t.http.get(`${r.path}?page=3&limit=2${extra}`);
      if (paged.status !== 200 || paged.body.page !== 3 || paged.body.limit !== 2) problems.push(`?page=3&limit=2 → ${paged.status} page=${paged.body?.page} limit=${paged.body?.limit}`);
      else if (!Array.isArray(paged.body.data) || paged.body.data.length > 2) problems.push('?limit=2 returned more than 2 items');
      if (problems.length) failures.push(`${label(r)}: ${problems.join('; ')}`);
    }
    expect(lists.length).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });
});
