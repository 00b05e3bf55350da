import type { z } from 'zod';
import { jsonSchemaOf, successResponses, type RouteDef } from '../../platform/http/registry';
import { toJsonSchema } from '../../platform/http/json-schema';
import type { Tenant, TestApp } from '../support/app';
import { withTwoTenants } from '../support/two-tenants';
import { expectError } from '../support/expect';
import { moduleTestRecords, type CrudFixture } from '../support/module-tests';
import { factories } from '../support/factories';

// Walks every route made by crudRoutes (api/http/crud.ts): a resource converted to the builder is
// covered here without touching this file, except for one valid create body and one partial update
// (here, or for a module under modules/ in its __tests__/factories.ts as `crudFixtures`).

type Fixture = CrudFixture;
/** A valid create body; the partial update renames `field` (only), and `unchanged` keeps its created value. */
const renaming = (field: string, create: Record<string, unknown>, unchanged: string): Fixture => ({
  create,
  update: { [field]: 'Renamed' },
  field,
  unchanged,
});

/** Per kind: a valid create body, and a partial update that changes `field` (only). */
const FIXTURES: Record<string, Fixture> = {
  'filter-preset': renaming('name', { name: 'Hot deals', area: 'deals', filterMode: 'or' }, 'filterMode'),
  'dashboard-layout': renaming('name', { name: 'Sales board', visibleComponents: ['pipeline'] }, 'visibleComponents'),
  product: renaming('name', { name: 'Solar panel', unitPrice: 1499.95, category: 'energy' }, 'unitPrice'),
  'catalog-item': renaming('name', { name: 'Inspection', unitPrice: 500, sortOrder: 1 }, 'unitPrice'),
  event: renaming(
    'title',
    { title: 'Kickoff', start: '2030-01-01T10:00:00.000Z', end: '2030-01-01T11:00:00.000Z' },
    'start',
  ),
  'custom-field': renaming('label', { entityType: 'company', key: 'segment', label: 'Segment', type: 'text' }, 'type'),
  list: renaming('name', { name: 'Conference leads', entityType: 'lead' }, 'entityType'),
  'lead-scoring-rule': renaming(
    'name',
    { name: 'Has e-mail', field: 'hasEmail', condition: 'equals', value: true, points: 10 },
    'points',
  ),
  'lead-routing-rule': renaming(
    'name',
    { name: 'Everyone to me', assignment: { type: 'user', userId: '__self__' } },
    'assignment',
  ),
  agent: renaming('name', { name: 'Researcher', goal: 'Find leads' }, 'modelTier'),
  'email-signature': renaming(
    'name',
    { name: 'Sales', content: '<p>Best regards</p>', textContent: 'Best regards' },
    'content',
  ),
  'email-template': renaming(
    'name',
    { name: 'Welcome', category: 'marketing', bodyHtml: '<p>Hello {{contact.firstName}}</p>' },
    'category',
  ),
  'offer-template': renaming(
    'name',
    { name: 'Standard offer', defaultTerms: 'Net 30', defaultValidity: 30 },
    'defaultValidity',
  ),
  company: renaming('name', { name: 'Acme ApS', city: 'Aarhus', tags: ['vip'] }, 'city'),
  person: renaming(
    'firstName',
    { firstName: 'Ada', lastName: 'Lovelace', emails: [{ email: 'ada@example.com' }] },
    'lastName',
  ),
  lead: renaming('title', { title: 'Solar inquiry', email: 'grace@example.com', source: 'website' }, 'email'),
  deal: renaming('title', { title: 'Roof renovation', value: 12000 }, 'value'),
  'sms-template': renaming(
    'name',
    { name: 'Reminder', message: 'Hi {{firstName}}, see you tomorrow', category: 'reminders' },
    'message',
  ),
  project: renaming('title', { title: 'Website relaunch', description: 'Phase one' }, 'description'),
  'support-ticket': renaming(
    'title',
    { title: 'Login fails', description: 'Since this morning', priority: 'high' },
    'priority',
  ),
};
// Modules under modules/ give theirs in __tests__/factories.ts (`crudFixtures`).
Object.assign(FIXTURES, moduleTestRecords<Fixture>('crudFixtures', FIXTURES));

/**
 * Fixture bodies may name the calling tenant's user as `__self__`, and a record of the tenant they need as
 * `__<kind>__` (a note's company, a clip card's project): that kind's factory makes one for each body.
 */
async function bind(body: Record<string, unknown>, tenant: Tenant): Promise<Record<string, unknown>> {
  let json = JSON.stringify(body).replaceAll('"__self__"', JSON.stringify(tenant.userId));
  for (const [placeholder, kind] of json.matchAll(/"__([a-z-]+)__"/g)) {
    const factory = factories[kind!];
    if (!factory) throw new Error(`crud fixture: no factory makes ${placeholder}`);
    json = json.replace(placeholder, JSON.stringify(await factory(tenant.http)));
  }
  return JSON.parse(json) as Record<string, unknown>;
}

interface Resource {
  kind: string;
  base: string;
  ops: Map<NonNullable<RouteDef['crud']>, RouteDef>;
}

let app: TestApp;
let t: Tenant;
let other: Tenant;
withTwoTenants((s) => ({ app, t, other } = s));

/** Builder routes grouped by collection path; the kind is the get route's `:id` resource. */
function resources(): Resource[] {
  const byBase = new Map<string, Resource>();
  for (const r of app.runtime.routes) {
    if (!r.crud) continue;
    const base = r.path.replace(/\/:id$/, '');
    const res = byBase.get(base) ?? { kind: base, base, ops: new Map() };
    res.ops.set(r.crud, r);
    if (r.resources?.id) res.kind = r.resources.id;
    byBase.set(base, res);
  }
  return [...byBase.values()];
}

const parse = (schema: z.ZodType | undefined, body: unknown, what: string): void => {
  if (!schema) throw new Error(`${what}: the builder route declares no response schema`);
  const result = schema.safeParse(body);
  if (!result.success)
    throw new Error(`${what}: body does not match its documented response schema: ${result.error.message}`);
};

describe('CRUD contract', () => {
  it('finds builder routes, each resource with all five operations and a fixture', () => {
    const found = resources();
    expect(found.map((r) => r.kind)).toEqual(expect.arrayContaining(Object.keys(FIXTURES)));
    for (const r of found) {
      expect([r.kind, [...r.ops.keys()].sort()]).toEqual([r.kind, ['create', 'get', 'list', 'remove', 'update']]);
      expect(FIXTURES[r.kind]).toBeDefined();
    }
  });

  describe.each(Object.keys(FIXTURES))('%s', (kind) => {
    const resource = (): Resource => {
      const r = resources().find((x) => x.kind === kind);
      if (!r) throw new Error(`no builder routes for ${kind}`);
      return r;
    };
    const op = (name: NonNullable<RouteDef['crud']>): RouteDef => resource().ops.get(name)!;
    const total = async (): Promise<number> => {
      const body = (await t.http.get(`${resource().base}?limit=1`)).body;
      return typeof body.total === 'number' ? body.total : body.data.length;
    };
    const paged = (): boolean => Boolean(op('list').query);

    it('create, get, list, partial update, delete then 404, every body as documented', async () => {
      const { base } = resource();
      const fx = FIXTURES[kind]!;
      const made = await t.http.post(base, await bind(fx.create, t));
      expect(made.status).toBe(201);
      parse(jsonSchemaOf(op('create').response), made.body, 'create');
      const id = made.body.data._id as string;

      const got = await t.http.get(`${base}/${id}`);
      expect(got.status).toBe(200);
      parse(jsonSchemaOf(op('get').response), got.body, 'get');
      expect(got.body.data).toEqual(made.body.data);

      const list = await t.http.get(paged() ? `${base}?page=1&limit=5` : base);
      expect(list.status).toBe(200);
      parse(jsonSchemaOf(op('list').response), list.body, 'list');
      if (paged()) expect(list.body).toMatchObject({ page: 1, limit: 5 });
      expect(list.body.data.map((x: { _id: string }) => x._id)).toContain(id);

      const updated = await t.http.request(op('update').method, `${base}/${id}`, fx.update);
      expect(updated.status).toBe(200);
      parse(jsonSchemaOf(op('update').response), updated.body, 'update');
      expect(updated.body.data[fx.field]).toEqual(fx.update[fx.field]);
      expect(updated.body.data[fx.unchanged]).toEqual(made.body.data[fx.unchanged]);

      const removed = await t.http.delete(`${base}/${id}`);
      expect(removed.status).toBe(200);
      parse(jsonSchemaOf(op('remove').response), removed.body, 'delete');
      // `{ ok: true }`, or `{ data }` where the resource documents its delete answer that way.
      if (!('data' in removed.body)) expect(removed.body).toEqual({ ok: true });
      for (const res of [
        await t.http.get(`${base}/${id}`),
        await t.http.request(op('update').method, `${base}/${id}`, fx.update),
        await t.http.delete(`${base}/${id}`),
      ]) {
        expectError(res, 404);
      }
    });

    it('page size: the documented maximum is accepted, one more is 400 (unpaged lists: every record)', async () => {
      if (!paged()) {
        const fx = FIXTURES[kind]!;
        const before = (await t.http.get(resource().base)).body.data.length as number;
        await t.http.post(resource().base, await bind({ ...fx.create, name: `Another ${kind}` }, t));
        const after = await t.http.get(`${resource().base}?limit=1`);
        expect(after.body.data).toHaveLength(before + 1);
        expect(after.body.total).toBeUndefined();
        return;
      }
      const schema = toJsonSchema(op('list').query) as { properties: { limit: { maximum: number } } };
      const max = schema.properties.limit.maximum;
      expect(max).toBeGreaterThan(0);
      const atMax = await t.http.get(`${resource().base}?limit=${max}`);
      expect(atMax.status).toBe(200);
      expect(atMax.body.limit).toBe(max);
      expectError(await t.http.get(`${resource().base}?limit=${max + 1}`), 400, /limit/);
    });

    it('malformed and foreign ids are 404 on get, update and delete; the foreign record is untouched', async () => {
      const { base } = resource();
      const fx = FIXTURES[kind]!;
      const theirs = (await other.http.post(base, await bind(fx.create, other))).body.data;
      for (const id of ['nope', '0123', 'zzzzzzzzzzzzzzzzzzzzzzzz', theirs._id]) {
        for (const res of [
          await t.http.get(`${base}/${id}`),
          await t.http.request(op('update').method, `${base}/${id}`, fx.update),
          await t.http.delete(`${base}/${id}`),
        ]) {
          expect([id, res.status]).toEqual([id, 404]);
        }
      }
      expect((await other.http.get(`${base}/${theirs._id}`)).body.data).toEqual(theirs);
    });

    it('preview (where the resource takes it) writes nothing', async () => {
      if (!op('create').previewable) {
        // Not previewable: the flag is not special, so it must not produce a preview answer.
        expect(op('update').previewable).toBeFalsy();
        return;
      }
      const { base } = resource();
      const fx = FIXTURES[kind]!;
      const before = await total();
      const preview = await t.http.post(`${base}?preview=true`, await bind(fx.create, t));
      expect(preview.status).toBe(200);
      expect(preview.body.data.preview).toBe(true);
      parse(jsonSchemaOf(successResponses(op('create')).get(preview.status)), preview.body, 'create preview');
      expect(await total()).toBe(before);
      const made = (await t.http.post(base, await bind(fx.create, t))).body.data;
      const previewUpdate = await t.http.request(op('update').method, `${base}/${made._id}`, {
        ...fx.update,
        preview: true,
      });
      expect(previewUpdate.body.data.preview).toBe(true);
      expect((await t.http.get(`${base}/${made._id}`)).body.data).toEqual(made);
    });
  });
});
