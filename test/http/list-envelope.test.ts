// Walks every route of the registry: slower as the API grows, so a generous per-test budget.
jest.setTimeout(180_000);
import type { RouteDef } from '../../platform/http/registry';
import type { Tenant, TestApp } from '../support/app';
import { withTestApp } from '../support/suites';

// Walks the live route list: every GET route without path parameters whose data is an array is a
// list, and every list answers { data, page, limit, total } (spec: Conventions) and pages.

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

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
      for (const key of ['page', 'limit', 'total'] as const)
        if (typeof body[key] !== 'number') problems.push(`no numeric ${key}`);
      if (body.page !== 1) problems.push(`page defaults to ${body.page}, not 1`);
      if (WITH_VIEW.includes(r.path) && typeof body.view !== 'string') problems.push('no view');
      if (res.status !== 200) problems.push(`?page=1 → ${res.status}`);
      const paged = await t.http.get(`${r.path}?page=3&limit=2${extra}`);
      if (paged.status !== 200 || paged.body.page !== 3 || paged.body.limit !== 2)
        problems.push(`?page=3&limit=2 → ${paged.status} page=${paged.body?.page} limit=${paged.body?.limit}`);
      else if (!Array.isArray(paged.body.data) || paged.body.data.length > 2)
        problems.push('?limit=2 returned more than 2 items');
      if (problems.length) failures.push(`${label(r)}: ${problems.join('; ')}`);
    }
    expect(lists.length).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });
});

/** The spec's enumerations, by route and field: every one must be accepted as the spec spells it. */
const SPEC_ENUMS: [route: string, field: string, values: string[]][] = [
  ['GET /api/v1/companies', 'query.view', ['summary', 'full']],
  ['GET /api/v1/deals', 'query.status', ['open', 'won', 'lost']],
  [
    'GET /api/v1/deals',
    'query.sortBy',
    ['title', 'value', 'updatedAt', 'createdAt', 'status', 'lostDate', 'wonDate', 'stage'],
  ],
  ['GET /api/v1/deals', 'query.sortOrder', ['asc', 'desc']],
  ['POST /api/v1/deals', 'body.priority', ['low', 'medium', 'high']],
  ['PUT /api/v1/deals/:id', 'body.priority', ['low', 'medium', 'high']],
  ['GET /api/v1/tasks', 'query.status', ['to_do', 'in_progress', 'blocked', 'done']],
  ['GET /api/v1/tasks', 'query.priority', ['low', 'medium', 'high', 'critical']],
  ['POST /api/v1/tasks', 'body.status', ['to_do', 'in_progress', 'blocked', 'done']],
  ['POST /api/v1/tasks', 'body.priority', ['low', 'medium', 'high', 'critical']],
  ['PUT /api/v1/tasks/:id', 'body.status', ['to_do', 'in_progress', 'blocked', 'done']],
  ['GET /api/v1/tags', 'query.entityType', ['company', 'person', 'deal', 'lead']],
  ['GET /api/v1/custom-fields', 'query.entityType', ['lead', 'deal', 'company', 'person']],
  [
    'POST /api/v1/custom-fields',
    'body.type',
    ['text', 'number', 'date', 'checkbox', 'select', 'multi_select', 'url', 'email', 'phone', 'textarea'],
  ],
  ['GET /api/v1/project-custom-fields', 'query.entityType', ['project', 'task']],
  ['GET /api/v1/project-custom-fields', 'query.forCreateDialog', ['true', 'false']],
  ['POST /api/v1/filter-presets', 'body.filterMode', ['and', 'or']],
  ['POST /api/v1/filter-presets', 'body.visibility', ['workspace', 'private', 'group', 'user']],
  ['POST /api/v1/automations', 'body.nodes.type', ['trigger', 'action', 'condition', 'delay', 'ai', 'lookup']],
  ['POST /api/v1/automations', 'body.executionSettings.failureBehavior', ['stop', 'continue', 'retry']],
  ['GET /api/v1/automations/:id/executions', 'query.status', ['running', 'completed', 'failed', 'cancelled']],
];

/** Every string enum in a JSON Schema, by dotted property path (array items share their parent's path). */
function enumsOf(schema: unknown, path: string, out: Map<string, string[]>): Map<string, string[]> {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) out.set(path, [...(out.get(path) ?? []), ...s.enum.map(String)]);
  for (const [key, value] of Object.entries(s)) {
    if (key === 'properties' && value && typeof value === 'object')
      for (const [p, sub] of Object.entries(value)) enumsOf(sub, `${path}.${p}`, out);
    else if (value && typeof value === 'object') enumsOf(value, path, out);
  }
  return out;
}

describe('enums against the spec', () => {
  it('every enumeration the spec names is accepted with all of its values', async () => {
    const docs = await t.http.get('/api/v1/docs?full=true');
    expect(docs.status).toBe(200);
    const endpoints = (
      docs.body.data.sections as { endpoints: { method: string; path: string; query: unknown; body: unknown }[] }[]
    ).flatMap((s) => s.endpoints);
    const failures: string[] = [];
    for (const [routeKey, field, values] of SPEC_ENUMS) {
      const [method, path] = routeKey.split(' ') as [string, string];
      const endpoint = endpoints.find((e) => e.method === method && e.path === path);
      if (!endpoint) {
        failures.push(`${routeKey}: no such route`);
        continue;
      }
      const found = enumsOf(endpoint.query, 'query', new Map());
      enumsOf(endpoint.body, 'body', found);
      const accepted = found.get(field);
      if (!accepted)
        failures.push(`${routeKey} ${field}: no enumeration (found ${[...found.keys()].join(', ') || 'none'})`);
      else {
        const missing = values.filter((v) => !accepted.includes(v));
        if (missing.length) failures.push(`${routeKey} ${field}: missing ${missing.join(', ')}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it.each([
    ['/api/v1/deals?status=lost&sortBy=stage&sortOrder=asc'],
    ['/api/v1/tasks?status=blocked&priority=critical'],
    ['/api/v1/tags?entityType=deal'],
    ['/api/v1/project-custom-fields?entityType=task&forCreateDialog=true'],
  ])('the spec spelling is accepted on the wire: %s', async (path) => {
    expect((await t.http.get(path)).status).toBe(200);
  });
});
