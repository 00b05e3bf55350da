import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { eventsFor } from '../../../test/support/outbox';

let app: TestApp;
let t: Tenant;
const base = '/api/v1/custom-objects';

withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  expect((await t.http.post(base, { slug: 'projects', singular: 'Project', plural: 'Projects' })).status).toBe(201);
  expect((await t.http.post(base, { slug: 'invoices', singular: 'Invoice', plural: 'Invoices' })).status).toBe(201);
  expect((await t.http.post(`${base}/projects/fields`, { slug: 'name', label: 'Name', type: 'text' })).status).toBe(
    201,
  );
  for (const f of [
    {
      slug: 'project',
      label: 'Project',
      type: 'record_reference',
      referenceType: 'custom',
      referenceObject: 'projects',
    },
    { slug: 'amount', label: 'Amount', type: 'currency' },
    { slug: 'hours', label: 'Hours', type: 'number' },
    { slug: 'note', label: 'Note', type: 'text' },
  ]) {
    expect((await t.http.post(`${base}/invoices/fields`, f)).status).toBe(201);
  }
});

const project = async (id: string) => (await t.http.get(`${base}/projects/records/${id}`)).body.data;
const invoice = (body: Record<string, unknown>) => t.http.post(`${base}/invoices/records`, body);

describe('rollup fields', () => {
  it('validates the definition', async () => {
    for (const body of [
      { slug: 'r', label: 'R', type: 'rollup' },
      { slug: 'r', label: 'R', type: 'rollup', rollup: { object: 'nope', via: 'project', aggregate: 'count' } },
      { slug: 'r', label: 'R', type: 'rollup', rollup: { object: 'invoices', via: 'amount', aggregate: 'count' } },
      {
        slug: 'r',
        label: 'R',
        type: 'rollup',
        rollup: { object: 'invoices', via: 'project', aggregate: 'median', field: 'amount' },
      },
      { slug: 'r', label: 'R', type: 'rollup', rollup: { object: 'invoices', via: 'project', aggregate: 'sum' } },
      {
        slug: 'r',
        label: 'R',
        type: 'rollup',
        rollup: { object: 'invoices', via: 'project', aggregate: 'sum', field: 'note' },
      },
      {
        slug: 'r',
        label: 'R',
        type: 'rollup',
        rollup: { object: 'invoices', via: 'project', aggregate: 'count', field: 'amount' },
      },
      {
        slug: 'r',
        label: 'R',
        type: 'rollup',
        rollup: { object: 'invoices', via: 'project', aggregate: 'count', extra: 1 },
      },
      {
        slug: 'r',
        label: 'R',
        type: 'rollup',
        isRequired: true,
        rollup: { object: 'invoices', via: 'project', aggregate: 'count' },
      },
      { slug: 'r', label: 'R', type: 'number', rollup: { object: 'invoices', via: 'project', aggregate: 'count' } },
    ]) {
      const res = await t.http.post(`${base}/projects/fields`, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    // The reference must point at the object the rollup lives on.
    expect(
      (
        await t.http.post(`${base}/invoices/fields`, {
          slug: 'r',
          label: 'R',
          type: 'rollup',
          rollup: { object: 'invoices', via: 'project', aggregate: 'count' },
        })
      ).status,
    ).toBe(400);
  });

  it('computes for existing records on create and recomputes on every write of the referencing records', async () => {
    const p1 = (await t.http.post(`${base}/projects/records`, { name: 'P1' })).body.data._id;
    const p2 = (await t.http.post(`${base}/projects/records`, { name: 'P2' })).body.data._id;
    const i1 = (await invoice({ project: p1, amount: 100, hours: 2 })).body.data._id;
    await invoice({ project: p1, amount: 50.5, hours: 4 });

    for (const [slug, aggregate, field] of [
      ['invoiceCount', 'count'],
      ['total', 'sum', 'amount'],
      ['avgHours', 'avg', 'hours'],
      ['smallest', 'min', 'amount'],
      ['largest', 'max', 'amount'],
    ] as const) {
      const res = await t.http.post(`${base}/projects/fields`, {
        slug,
        label: slug,
        type: 'rollup',
        rollup: { object: 'invoices', via: 'project', aggregate, ...(field ? { field } : {}) },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.rollup).toEqual({ object: 'invoices', via: 'project', aggregate, field: field ?? null });
    }
    expect(await project(p1)).toMatchObject({
      invoiceCount: 2,
      total: 150.5,
      avgHours: 3,
      smallest: 50.5,
      largest: 100,
    });
    const empty = await project(p2);
    expect(empty).toMatchObject({ invoiceCount: 0, total: 0 });
    expect(empty.avgHours).toBeUndefined();

    // Create, update (value and re-pointing), delete of invoices: both old and new parent follow.
    const i3 = (await invoice({ project: p2, amount: 10 })).body.data._id;
    expect(await project(p2)).toMatchObject({ invoiceCount: 1, total: 10, smallest: 10, largest: 10 });
    await t.http.patch(`${base}/invoices/records/${i1}`, { amount: 200 });
    expect(await project(p1)).toMatchObject({ total: 250.5, largest: 200 });
    await t.http.patch(`${base}/invoices/records/${i1}`, { project: p2 });
    expect(await project(p1)).toMatchObject({ invoiceCount: 1, total: 50.5, largest: 50.5 });
    expect(await project(p2)).toMatchObject({ invoiceCount: 2, total: 210, avgHours: 2 });
    await t.http.delete(`${base}/invoices/records/${i3}`);
    expect(await project(p2)).toMatchObject({ invoiceCount: 1, total: 200 });
    const bulk = await t.http.post(`${base}/invoices/records/bulk`, { ids: [i1], patch: { amount: 1 } });
    expect(bulk.status).toBe(200);
    expect(await project(p2)).toMatchObject({ total: 1 });
    await t.http.patch(`${base}/invoices/records/${i1}`, { project: null });
    expect(await project(p2)).toMatchObject({ invoiceCount: 0, total: 0 });

    // The parent's change is an event (automations, search, webhooks see it).
    const events = await eventsFor(app.runtime.deps.orm, p2);
    expect(events.some((e) => e.type === 'custom_object_updated')).toBe(true);
    // Lists sort by the stored aggregate.
    const sorted = await t.http.get(`${base}/projects/records?sort=total&dir=desc`);
    expect(sorted.body.data.map((r: { _id: string }) => r._id).slice(0, 2)).toEqual([p1, p2]);
  });

  it('is read-only on write and protects its inputs', async () => {
    const p = (await t.http.post(`${base}/projects/records`, { name: 'RO' })).body.data._id;
    for (const body of [{ name: 'x', total: 5 }, { data: { invoiceCount: 1 } }, { customFields: { largest: 1 } }]) {
      expect([JSON.stringify(body), (await t.http.post(`${base}/projects/records`, body)).status]).toEqual([
        JSON.stringify(body),
        400,
      ]);
      expect([JSON.stringify(body), (await t.http.patch(`${base}/projects/records/${p}`, body)).status]).toEqual([
        JSON.stringify(body),
        400,
      ]);
    }
    expect((await t.http.delete(`${base}/invoices/fields/amount`)).status).toBe(409);
    expect((await t.http.delete(`${base}/invoices/fields/project`)).status).toBe(409);
    expect((await t.http.delete(`${base}/invoices`)).status).toBe(409);
    expect((await t.http.delete(`${base}/invoices/fields/note`)).status).toBe(200);
  });

  it('counts only records of the own workspace', async () => {
    const other = await app.tenant();
    const p = (await t.http.post(`${base}/projects/records`, { name: 'Mine' })).body.data._id;
    await other.http.post(base, { slug: 'invoices', singular: 'Invoice', plural: 'Invoices' });
    await other.http.post(`${base}/invoices/fields`, { slug: 'project', label: 'P', type: 'text' });
    expect((await other.http.post(`${base}/invoices/records`, { project: p })).status).toBe(201);
    expect(await project(p)).toMatchObject({ invoiceCount: 0 });
  });
});
