import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany, makePerson, unique } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const key = (): string => `k${unique()}`;
const define = (http: Tenant['http'], body: Record<string, unknown>) =>
  http.post('/api/v1/custom-fields', { entityType: 'company', key: key(), label: 'Field', type: 'text', ...body });

describe('POST /api/v1/custom-fields', () => {
  it('creates a definition with defaults and emits custom_field_created', async () => {
    // Its own workspace: a required deal field would constrain deal writes of other tests.
    const mine = await app.tenant();
    const res = await mine.http.post('/api/v1/custom-fields', {
      entityType: 'deal',
      key: 'contractTier',
      label: ' Contract tier ',
      type: 'select',
      description: 'Tier',
      order: 3,
      options: ['gold', { value: 'silver', label: 'Silver', color: '#ccc' }],
      required: true,
    });
    expectCreated(res, {
      entityType: 'deal',
      key: 'contractTier',
      label: 'Contract tier',
      type: 'select',
      description: 'Tier',
      order: 3,
      required: true,
      showInCreateDialog: true,
      options: [
        { value: 'gold', label: 'gold' },
        { value: 'silver', label: 'Silver', color: '#ccc' },
      ],
    });
    const plain = (await define(mine.http, {})).body.data;
    expect(plain).toMatchObject({
      options: [],
      required: false,
      order: 0,
      description: null,
      showInCreateDialog: true,
    });
    expect((await eventsFor(app.runtime.deps.orm, res.body.data._id)).map((e) => e.type)).toEqual([
      'custom_field_created',
    ]);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing entityType', { entityType: undefined }, /entityType/],
    ['unknown entityType', { entityType: 'invoice' }, /entityType.*one of/],
    ['missing key', { key: undefined }, /key/],
    ['key with uppercase first letter', { key: 'Tier' }, /key.*lowercase letter/],
    ['key starting with a digit', { key: '1tier' }, /key/],
    ['key with a dash', { key: 'contract-tier' }, /key/],
    ['key with a space', { key: 'contract tier' }, /key/],
    ['key of 65 characters', { key: 'k'.repeat(65) }, /key/],
    ['empty label', { label: '  ' }, /label/],
    ['label over 200', { label: 'x'.repeat(201) }, /label.*200/],
    ['unknown type', { type: 'currency' }, /type.*one of/],
    ['select without options', { type: 'select' }, /options.*at least one option/],
    ['multi_select with empty options', { type: 'multi_select', options: [] }, /options/],
    [
      'duplicate option values',
      { type: 'select', options: ['a', { value: 'a', label: 'A' }] },
      /duplicate option value "a"/,
    ],
    ['options on a text field', { type: 'text', options: ['a'] }, /only select and multi_select/],
    ['201 options', { type: 'select', options: Array.from({ length: 201 }, (_, i) => `o${i}`) }, /options.*200/],
    ['description over 1000', { description: 'x'.repeat(1001) }, /description/],
    ['order negative', { order: -1 }, /order/],
    ['required not boolean', { required: 'yes' }, /required/],
  ];
  it.each(bad)('400 for %s', async (_label, override, message) => {
    const before = (await t.http.get('/api/v1/custom-fields?limit=1')).body.total;
    const res = await define(t.http, override);
    expectError(res, 400, message);
    expect((await t.http.get('/api/v1/custom-fields?limit=1')).body.total).toBe(before);
  });

  it('accepts a 64-character key and 200 options', async () => {
    expect((await define(t.http, { key: `a${'b'.repeat(63)}` })).status).toBe(201);
    expect(
      (await define(t.http, { type: 'multi_select', options: Array.from({ length: 200 }, (_, i) => `o${i}`) })).status,
    ).toBe(201);
  });

  it('a key is unique per entity type: 409 for a duplicate, fine for another type', async () => {
    const k = key();
    expect((await define(t.http, { key: k })).status).toBe(201);
    const dup = await define(t.http, { key: k, type: 'number' });
    expectError(dup, 409, new RegExp(`key "${k}" already exists`));
    expect((await define(t.http, { key: k, entityType: 'person' })).status).toBe(201);
  });

  it('allows at most 100 definitions per entity type', async () => {
    const mine = await app.tenant();
    for (let i = 0; i < 100; i++)
      expect((await define(mine.http, { entityType: 'lead', key: `f${i}` })).status).toBe(201);
    const over = await define(mine.http, { entityType: 'lead', key: 'f100' });
    expectError(over, 409, /at most 100/);
    expect((await define(mine.http, { entityType: 'deal', key: 'f100' })).status).toBe(201);
  });

  it('definitions are schema: writes need the write scope and the owner or admin role', async () => {
    const member = await app.key(t.workspaceId, ['read', 'write'], 'member');
    const admin = await app.key(t.workspaceId, ['read', 'write'], 'admin');
    const reader = await app.key(t.workspaceId, ['read'], 'owner');
    const id = (await define(t.http, {})).body.data._id;
    expect((await define(member, {})).status).toBe(403);
    expect((await member.put(`/api/v1/custom-fields/${id}`, { label: 'x' })).status).toBe(403);
    expect((await member.delete(`/api/v1/custom-fields/${id}`)).status).toBe(403);
    expect((await define(reader, {})).status).toBe(403);
    expect((await member.get(`/api/v1/custom-fields/${id}`)).status).toBe(200);
    expect((await define(admin, {})).status).toBe(201);
  });
});

describe('GET /api/v1/custom-fields and /project-custom-fields', () => {
  it('lists by entity type then order; all types without entityType; 400 for an unknown type', async () => {
    const mine = await app.tenant();
    await define(mine.http, { entityType: 'person', key: 'second', order: 2 });
    await define(mine.http, { entityType: 'person', key: 'first', order: 1 });
    await define(mine.http, { entityType: 'company', key: 'other' });
    await define(mine.http, { entityType: 'task', key: 'effort', type: 'number', showInCreateDialog: false });
    await define(mine.http, { entityType: 'project', key: 'budget', type: 'number' });
    const people = await mine.http.get('/api/v1/custom-fields?entityType=person');
    expect(people.body).toMatchObject({ page: 1, limit: 20, total: 2 });
    expect(people.body.data.map((d: any) => d.key)).toEqual(['first', 'second']);
    const all = await mine.http.get('/api/v1/custom-fields');
    expect(all.body.data.map((d: any) => d.key)).toEqual(['other', 'first', 'second', 'budget', 'effort']);
    for (const q of ['entityType=invoice', 'entityType=', 'limit=101', 'page=0']) {
      expect((await mine.http.get(`/api/v1/custom-fields?${q}`)).status).toBe(400);
    }
    const project = await mine.http.get('/api/v1/project-custom-fields');
    expect(project.body.data.map((d: any) => d.key)).toEqual(['budget', 'effort']);
    expect(
      (await mine.http.get('/api/v1/project-custom-fields?entityType=task')).body.data.map((d: any) => d.key),
    ).toEqual(['effort']);
    const dialog = await mine.http.get('/api/v1/project-custom-fields?forCreateDialog=true');
    expect(dialog.body.data.map((d: any) => d.key)).toEqual(['budget']);
    expect((await mine.http.get('/api/v1/project-custom-fields?forCreateDialog=false')).body.total).toBe(2);
    for (const q of ['entityType=lead', 'forCreateDialog=yes'])
      expect((await mine.http.get(`/api/v1/project-custom-fields?${q}`)).status).toBe(400);
  });
});

describe('GET/PUT/DELETE /api/v1/custom-fields/:id', () => {
  it('gets, updates partially and emits custom_field_updated', async () => {
    const mine = await app.tenant();
    const def = (await define(mine.http, { type: 'select', options: ['a', 'b'] })).body.data;
    expect((await mine.http.get(`/api/v1/custom-fields/${def._id}`)).body.data).toEqual(def);
    const res = await mine.http.put(`/api/v1/custom-fields/${def._id}`, {
      label: 'Renamed',
      options: ['a', 'b', 'c'],
      required: true,
      key: def.key,
      entityType: 'company',
    });
    expectOk(res, { label: 'Renamed', required: true, key: def.key, type: 'select' });
    expect(res.body.data.options.map((o: any) => o.value)).toEqual(['a', 'b', 'c']);
    const events = await eventsFor(app.runtime.deps.orm, def._id);
    expect(events.map((e) => e.type)).toEqual(['custom_field_created', 'custom_field_updated']);
    expect(events[1]!.payload.changes.label).toEqual({ from: 'Field', to: 'Renamed' });
  });

  it('key and entityType are immutable; select needs options after the merge', async () => {
    const def = (await define(t.http, {})).body.data;
    for (const [body, message] of [
      [{ key: 'other' }, /key: cannot be changed/],
      [{ entityType: 'person' }, /entityType: cannot be changed/],
      [{ type: 'select' }, /options.*at least one option/],
      [{ type: 'fancy' }, /type/],
      [{ label: '' }, /label/],
      [{ options: ['x'] }, /only select/],
    ] as const) {
      expectError(await t.http.put(`/api/v1/custom-fields/${def._id}`, body), 400, message);
    }
    expect((await t.http.get(`/api/v1/custom-fields/${def._id}`)).body.data).toEqual(def);
    const toSelect = await t.http.put(`/api/v1/custom-fields/${def._id}`, { type: 'select', options: ['x'] });
    expect(toSelect.body.data).toMatchObject({ type: 'select', options: [{ value: 'x', label: 'x' }] });
    const back = await t.http.put(`/api/v1/custom-fields/${def._id}`, { type: 'text' });
    expect(back.body.data).toMatchObject({ type: 'text', options: [] });
  });

  it.each([
    ['company', (k: string) => makeCompany(t.http, { customFields: { [k]: 'v' } })],
    ['person', (k: string) => makePerson(t.http, { customFields: [{ name: k, value: 'v' }] })],
    ['lead', (k: string) => t.http.post('/api/v1/leads', { title: 'L', customFields: { [k]: 'v' } })],
    ['deal', (k: string) => t.http.post('/api/v1/deals', { title: 'D', customFields: { [k]: 'v' } })],
  ])('refuses a type change with 409 while %s records hold values', async (entityType, write) => {
    const def = (await define(t.http, { entityType })).body.data;
    expect((await t.http.put(`/api/v1/custom-fields/${def._id}`, { type: 'textarea' })).status).toBe(200);
    expect((await write(def.key)).status).toBe(201);
    const res = await t.http.put(`/api/v1/custom-fields/${def._id}`, { type: 'number' });
    expectError(res, 409, /records hold values/);
    expect((await t.http.put(`/api/v1/custom-fields/${def._id}`, { label: 'Still editable' })).status).toBe(200);
  });

  it('delete removes the definition, keeps stored values, 404s afterwards', async () => {
    const def = (await define(t.http, { type: 'number' })).body.data;
    const company = (await makeCompany(t.http, { customFields: { [def.key]: 5 } })).body.data;
    const del = await t.http.delete(`/api/v1/custom-fields/${def._id}`);
    expect(del.body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/custom-fields/${def._id}`)).status).toBe(404);
    expect((await t.http.delete(`/api/v1/custom-fields/${def._id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/companies/${company._id}`)).body.data.customFields).toEqual([
      { name: def.key, value: 5 },
    ]);
    // Without the definition the key is free-form again.
    expect(
      (await t.http.put(`/api/v1/companies/${company._id}`, { customFields: { [def.key]: 'text now' } })).status,
    ).toBe(200);
    expect((await eventsFor(app.runtime.deps.orm, def._id)).map((e) => e.type)).toContain('custom_field_deleted');
  });

  it('unknown and malformed ids are 404', async () => {
    for (const id of ['0123456789abcdef01234567', 'nope']) {
      expect((await t.http.get(`/api/v1/custom-fields/${id}`)).status).toBe(404);
      expect((await t.http.put(`/api/v1/custom-fields/${id}`, { label: 'x' })).status).toBe(404);
    }
  });
});
