import type { Tenant } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { expectCreated } from '../../../test/support/expect';

let t: Tenant;
const base = '/api/v1/custom-objects';

withTestApp((s) => ({ t } = s));
beforeAll(async () => {
  expect((await t.http.post(base, { slug: 'orders', singular: 'Order', plural: 'Orders' })).status).toBe(201);
  for (const f of [
    { slug: 'price', label: 'Price', type: 'currency' },
    { slug: 'qty', label: 'Qty', type: 'number' },
    { slug: 'note', label: 'Note', type: 'text' },
  ]) {
    expect((await t.http.post(`${base}/orders/fields`, f)).status).toBe(201);
  }
});

const get = async (id: string) => (await t.http.get(`${base}/orders/records/${id}`)).body.data;

describe('formula fields', () => {
  it('validates the definition', async () => {
    for (const body of [
      { slug: 'f1', label: 'F', type: 'formula' },
      { slug: 'f1', label: 'F', type: 'formula', expression: '' },
      { slug: 'f1', label: 'F', type: 'formula', expression: 'price *' },
      { slug: 'f1', label: 'F', type: 'formula', expression: 'unknown * 2' },
      { slug: 'f1', label: 'F', type: 'formula', expression: 'note * 2' },
      { slug: 'f1', label: 'F', type: 'formula', expression: 'price; process.exit(1)' },
      { slug: 'f1', label: 'F', type: 'formula', expression: `${'1+'.repeat(250)}1` },
      { slug: 'f1', label: 'F', type: 'formula', expression: 'price', isRequired: true },
      { slug: 'f1', label: 'F', type: 'formula', expression: 'price', isUnique: true },
      { slug: 'f1', label: 'F', type: 'number', expression: 'price' },
      { slug: 'f1', label: 'F', type: 'rollup' },
    ]) {
      expect([JSON.stringify(body), (await t.http.post(`${base}/orders/fields`, body)).status]).toEqual([
        JSON.stringify(body),
        400,
      ]);
    }
  });

  it('computes on create for existing records, on every write, and recomputes when the expression changes', async () => {
    const a = (await t.http.post(`${base}/orders/records`, { price: 10, qty: 3 })).body.data._id;
    const b = (await t.http.post(`${base}/orders/records`, { price: 5 })).body.data._id;

    const field = await t.http.post(`${base}/orders/fields`, {
      slug: 'total',
      label: 'Total',
      type: 'formula',
      expression: 'price * qty',
    });
    expectCreated(field, { slug: 'total', type: 'formula', expression: 'price * qty' });
    expect((await get(a)).total).toBe(30);
    expect((await get(b)).total).toBeUndefined();

    const c = await t.http.post(`${base}/orders/records`, { price: 2.5, qty: 4 });
    expect(c.status).toBe(201);
    expect(c.body.data.total).toBe(10);
    const patched = await t.http.patch(`${base}/orders/records/${b}`, { qty: 3 });
    expect(patched.body.data.total).toBe(15);
    expect((await t.http.put(`${base}/orders/records/${b}`, { price: null })).body.data.total).toBeUndefined();
    expect((await t.http.patch(`${base}/orders/records/${b}`, { data: { price: 1 } })).body.data.total).toBe(3);

    // Read-only on write, in every shape.
    for (const body of [
      { total: 1 },
      { data: { total: 1 } },
      { customFields: { total: 1 } },
      { price: 1, total: null },
    ]) {
      const res = await t.http.patch(`${base}/orders/records/${a}`, body);
      expect(res.status).toBe(400);
      expect(res.body.details).toEqual([{ path: 'total', error: 'is read-only' }]);
    }
    expect((await t.http.post(`${base}/orders/records`, { price: 1, total: 5 })).status).toBe(400);
    expect((await t.http.post(`${base}/orders/records/bulk`, { ids: [a], patch: { total: 5 } })).status).toBe(400);
    expect((await get(a)).total).toBe(30);

    // A new expression recomputes every record.
    const changed = await t.http.patch(`${base}/orders/fields/total`, { expression: '(price - 1) * qty / 2' });
    expect(changed.status).toBe(200);
    expect(changed.body.data.expression).toBe('(price - 1) * qty / 2');
    expect((await get(a)).total).toBe(13.5);
    expect((await get(b)).total).toBe(0);
    expect((await get(c.body.data._id)).total).toBe(3);
    expect((await t.http.patch(`${base}/orders/fields/total`, { expression: 'note + 1' })).status).toBe(400);
    expect((await t.http.patch(`${base}/orders/fields/qty`, { expression: 'price' })).status).toBe(400);

    // Sortable like any field; inputs in use cannot be deleted.
    const sorted = await t.http.get(`${base}/orders/records?sort=total&dir=desc`);
    expect(sorted.body.data.map((r: { total?: number }) => r.total)).toEqual([13.5, 3, 0]);
    expect((await t.http.delete(`${base}/orders/fields/price`)).status).toBe(409);
    expect((await t.http.delete(`${base}/orders/fields/total`)).status).toBe(200);
    expect((await t.http.delete(`${base}/orders/fields/price`)).status).toBe(200);
  });
});
