// Walks every route of the registry: slower as the API grows, so a generous per-test budget.
jest.setTimeout(180_000);
import { isPublic } from '../../platform/http/registry';
import { resourceOf } from '../../app/resources';
import type { Tenant, TestApp } from '../support/app';
import { withTwoTenants } from '../support/two-tenants';
import { factories, ISOLATION_OBJECT_SLUG, projectCommentTask } from '../support/factories';
import { contractOfSigner } from '../../modules/contracts/__tests__/factories';

/**
 * Walks the route registry: every route with an :id-like parameter is called with workspace B's
 * key against a record of workspace A. Always 404, and A's record is unchanged afterwards.
 */
let app: TestApp;
let a: Tenant;
let b: Tenant;
withTwoTenants((s) => ({ app, t: a, other: b } = s));

// Required body ids (personId, a stage `id`, stageId) are filled so the 404 check is reached, not a 400.
const SAMPLE_BODY = {
  name: 'Hijacked',
  firstName: 'Hijacked',
  title: 'Hijacked',
  personId: '0123456789abcdef01234567',
  id: '0123456789abcdef01234567',
  stageId: '0123456789abcdef01234567',
  preview: false,
  unread: false,
  hours: 1,
  inputs: {},
  newSlotStart: '2031-01-01T10:00:00Z',
  expiresAt: '2031-01-01T10:00:00Z',
};
/** Custom object field and bulk-record bodies need their own required keys (a `type` would break other routes). */
const bodyFor = (path: string) =>
  path.includes('/custom-objects')
    ? {
        ...SAMPLE_BODY,
        slug: 'hijacked',
        label: 'Hijacked',
        type: 'text',
        ids: ['0123456789abcdef01234567'],
        patch: {},
        rows: [{ name: 'Hijacked' }],
      }
    : SAMPLE_BODY;

/** GET path of a kind when it is not its manifest's getPath (domain/resources.ts) or /api/v1/<kind>s/:id. */
const COLLECTIONS: Record<string, string | ((id: string) => string)> = {
  'lead-scoring-rule': 'lead-scoring/rules',
  'lead-routing-rule': 'lead-routing/rules',
  'automation-execution': 'automations/executions',
  'webhook-delivery': 'webhooks/deliveries',
  'outbox-delivery': 'admin/outbox/deliveries',
  'sms-thread': 'sms/threads',
  'sms-scheduled': 'sms/scheduled',
  'sms-template': 'sms-templates',
  'sequence-enrollment': 'sequences/enrollments',
  'custom-object': 'custom-objects',
  // Fields are read through their object's definition.
  'custom-object-field': () => `custom-objects/${ISOLATION_OBJECT_SLUG}`,
  'project-task': 'projects/tasks',
  'project-comment': (id) => `projects/tasks/${projectCommentTask.get(id)}/comments`,
  // A signer is read through its contract.
  'contract-signer': (id) => `contracts/${contractOfSigner.get(id)}`,
  'catalog-item': 'catalog',
  // GET /files/:id signs a fresh download URL on every read; folders have no GET of their own.
  file: () => 'files?limit=100',
  folder: () => 'folders?limit=100',
  'email-bulk': 'emails/bulk',
};
const getPathOf = (kind: string, id: string): string => {
  const c = COLLECTIONS[kind];
  // Resource kinds are read at their manifest's getPath (custom object records under the isolation object).
  const manifest = c === undefined ? resourceOf(kind) : undefined;
  if (manifest) return manifest.getPath.replace(':slug', ISOLATION_OBJECT_SLUG).replace(':id', id);
  return typeof c === 'function' ? `/api/v1/${c(id)}` : `/api/v1/${c ?? kind + 's'}/${id}`;
};

it('every route with path parameters declares the resource kind of each, and a factory exists for it', () => {
  const problems: string[] = [];
  // Public routes (image tokens, automation webhooks) are capability-addressed, not tenant-bound.
  for (const r of app.runtime.routes.filter((x) => !isPublic(x.access))) {
    const params = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    for (const param of params) {
      const kind = r.resources?.[param];
      if (!kind) problems.push(`${r.method} ${r.path}: no resource declared for :${param}`);
      else if (!factories[kind]) problems.push(`${r.method} ${r.path}: no factory for resource kind "${kind}"`);
    }
  }
  expect(problems).toEqual([]);
});

it('another workspace gets 404 on every :id route and changes nothing', async () => {
  const routes = app.runtime.routes.filter(
    (r) =>
      !isPublic(r.access) &&
      r.path.includes('/:') &&
      r.resources &&
      Object.values(r.resources).every((k) => factories[k]),
  );
  expect(routes.length).toBeGreaterThan(10);
  const failures: string[] = [];
  for (const r of routes) {
    const ids: Record<string, string> = {};
    for (const [param, kind] of Object.entries(r.resources!)) ids[param] = await factories[kind]!(a.http, { app });
    const path = r.path.replace(/:(\w+)/g, (_, p: string) => ids[p]!);
    const getPaths = Object.entries(r.resources!).map(([param, kind]) => getPathOf(kind, ids[param]!));
    const before = await Promise.all(getPaths.map((p) => a.http.get(p)));
    const res = await b.http.request(
      r.method,
      path,
      r.method === 'GET' || r.method === 'DELETE' ? undefined : bodyFor(r.path),
    );
    if (res.status !== 404) failures.push(`${r.method} ${r.path} answered ${res.status} ${JSON.stringify(res.body)}`);
    else if (typeof res.body?.error !== 'string') failures.push(`${r.method} ${r.path}: 404 without { error }`);
    const after = await Promise.all(getPaths.map((p) => a.http.get(p)));
    after.forEach((x, i) => {
      if (x.status !== 200 || JSON.stringify(x.body) !== JSON.stringify(before[i]!.body))
        failures.push(`${r.method} ${r.path} changed workspace A's record`);
    });
  }
  expect(failures).toEqual([]);
}, 180_000);

it("lists never show another workspace's records", async () => {
  const id = await factories.company!(a.http);
  const res = await b.http.get('/api/v1/companies?limit=500');
  expect(res.body.data.map((c: any) => c._id)).not.toContain(id);
  const personId = await factories.person!(a.http);
  expect((await b.http.get('/api/v1/people?limit=500')).body.data.map((p: any) => p._id)).not.toContain(personId);
});

it("a write in B cannot reference A's records", async () => {
  const companyOfA = await factories.company!(a.http);
  const res = await b.http.post('/api/v1/people', { firstName: 'X', companyId: companyOfA });
  expect(res.status).toBe(400);
  const personOfA = await factories.person!(a.http);
  const companyOfB = await factories.company!(b.http);
  expect((await b.http.post(`/api/v1/companies/${companyOfB}/people`, { personId: personOfA })).status).toBe(400);
});
