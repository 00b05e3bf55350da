import type { Tenant, TestApp } from '../../../test/support/app';
import { withTwoTenants } from '../../../test/support/two-tenants';
import { factories, unique } from '../../../test/support/factories';
import { expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let other: Tenant;
withTwoTenants((s) => ({ app, t, other } = s));

const offerType = async (extra: Record<string, unknown> = {}, http = t.http) => {
  const res = await http.post('/api/v1/offer-types', {
    name: `Web shop ${unique()}`,
    requiredInputFields: [
      { fieldId: 'pages', label: 'Pages', type: 'slider', min: 1, max: 50, required: true },
      { fieldId: 'shop', label: 'Web shop', type: 'checkbox' },
      { fieldId: 'hours', label: 'Hours', type: 'computed', expression: 'pages * 4 + if(shop, 40, 0)' },
    ],
    pricingRules: {
      vatRate: 25,
      currency: 'EUR',
      rules: [
        {
          name: 'Build',
          then: [
            { type: 'add_line', name: 'Development', quantityExpression: 'hours', unitPrice: 95.5, unit: 'hours' },
          ],
        },
        {
          name: 'Existing',
          when: { all: [{ subject: 'customer.isExisting', operator: 'is_true' }] },
          then: [{ type: 'percent_discount', percent: 5 }],
        },
      ],
    },
    ...extra,
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body.data as Record<string, any>;
};
const calc = (id: string, body: unknown, http = t.http) =>
  http.post(`/api/v1/calculator-templates/${id}/calculate`, body);

describe('calculator templates', () => {
  it('are the active offer types: listed, read with their pricing rules, inactive ones 404', async () => {
    const fresh = await app.tenant();
    const active = await offerType({}, fresh.http);
    const inactive = await offerType({ isActive: false }, fresh.http);
    const list = await fresh.http.get('/api/v1/calculator-templates');
    expect(list.body).toMatchObject({ page: 1, limit: 20, total: 1 });
    expect(list.body.data[0]).toMatchObject({
      _id: active._id,
      offerTypeId: active._id,
      name: active.name,
      currency: 'EUR',
      vatRate: 25,
      vatDisplayMode: 'excl',
      ruleCount: 2,
    });
    expect(list.body.data[0].inputFields.map((f: any) => f.fieldId)).toEqual(['pages', 'shop', 'hours']);
    const one = await fresh.http.get(`/api/v1/calculator-templates/${active._id}`);
    expect(one.body.data.pricingRules.rules.map((r: any) => r.name)).toEqual(['Build', 'Existing']);
    expect((await fresh.http.get(`/api/v1/calculator-templates/${inactive._id}`)).status).toBe(404);
    expect((await fresh.http.get('/api/v1/calculator-templates?limit=101')).status).toBe(400);
  });

  it('calculate runs the rules statelessly; inputs are required and checked', async () => {
    const type = await offerType();
    const res = await calc(type._id, { inputs: { pages: 5, shop: true }, customer: { isExisting: true } });
    expectOk(res, {
      templateId: type._id,
      currency: 'EUR',
      computedFields: { hours: 60 },
      subtotal: 5443.5,
      vatAmount: 1360.88,
      total: 6804.38,
    });
    expect(res.body.data.submissionId).toBeUndefined();
    expect(res.body.data.trace).toHaveLength(2);
    expect((await t.http.get(`/api/v1/calculator-submissions?templateId=${type._id}`)).body.total).toBe(0);

    const cases: [unknown, string, RegExp][] = [
      [{}, 'inputs', /./],
      [{ inputs: 'x' }, 'inputs', /./],
      [{ inputs: {} }, 'inputs.pages', /is required/],
      [{ inputs: { pages: 'many' } }, 'inputs.pages', /must be a number/],
      [{ inputs: { pages: 51 } }, 'inputs.pages', /at most 50/],
      [{ inputs: { pages: 2, shop: 'maybe' } }, 'inputs.shop', /boolean/],
      [{ inputs: { pages: 2 }, save: 'yes' }, 'save', /boolean/],
      [{ inputs: { pages: 2 }, offerId: 'abc' }, 'offerId', /24-character/],
    ];
    for (const [body, path, error] of cases) {
      const r = await calc(type._id, body);
      expect([path, r.status]).toEqual([path, 400]);
      expect([path, r.body.details]).toEqual([
        path,
        expect.arrayContaining([{ path, error: expect.stringMatching(error) }]),
      ]);
    }
    expect((await calc('0123456789abcdef01234567', { inputs: { pages: 1 } })).status).toBe(404);
  });

  it('save: true stores a submission; the list filters by templateId and offerId', async () => {
    const a = await offerType();
    const b = await offerType();
    const offerId = await factories.offer!(t.http);
    const saved = await calc(a._id, { inputs: { pages: 2 }, save: true, offerId });
    expect(saved.status).toBe(200);
    expect(saved.body.data.submissionId).toMatch(/^[0-9a-f]{24}$/);
    await calc(a._id, { inputs: { pages: 3 }, save: true });
    await calc(b._id, { inputs: { pages: 1 }, save: true });
    const ofA = await t.http.get(`/api/v1/calculator-submissions?templateId=${a._id}`);
    expect(ofA.body).toMatchObject({ total: 2, page: 1, limit: 20 });
    expect(ofA.body.data[1]).toMatchObject({
      _id: saved.body.data.submissionId,
      templateId: a._id,
      templateName: a.name,
      offerId,
      inputs: { pages: 2 },
      subtotal: 764,
      total: 955,
      currency: 'EUR',
      blocked: false,
    });
    expect(ofA.body.data[1].result.lines[0]).toMatchObject({ name: 'Development', quantity: 8 });
    expect(
      (await t.http.get(`/api/v1/calculator-submissions?offerId=${offerId}`)).body.data.map((s: any) => s._id),
    ).toEqual([saved.body.data.submissionId]);
    expect((await t.http.get('/api/v1/calculator-submissions?limit=1&page=2')).body).toMatchObject({
      page: 2,
      limit: 1,
    });
    expect((await t.http.get('/api/v1/calculator-submissions?limit=100')).status).toBe(200);
    expect((await t.http.get('/api/v1/calculator-submissions?limit=101')).status).toBe(400);
    expect((await t.http.get('/api/v1/calculator-submissions?templateId=nope')).status).toBe(400);

    // A read-only key may calculate but not save.
    const readOnly = await app.key(t.workspaceId, ['read'], 'member');
    expect((await calc(a._id, { inputs: { pages: 2 } }, readOnly)).status).toBe(200);
    expect((await calc(a._id, { inputs: { pages: 2 }, save: true }, readOnly)).status).toBe(403);
  });

  it('another workspace sees neither templates nor submissions', async () => {
    const mine = await offerType();
    await calc(mine._id, { inputs: { pages: 1 }, save: true });
    expect((await other.http.get(`/api/v1/calculator-templates/${mine._id}`)).status).toBe(404);
    expect((await calc(mine._id, { inputs: { pages: 1 } }, other.http)).status).toBe(404);
    expect(
      (await other.http.get('/api/v1/calculator-templates?limit=100')).body.data.map((x: any) => x._id),
    ).not.toContain(mine._id);
    expect((await other.http.get(`/api/v1/calculator-submissions?templateId=${mine._id}`)).body.total).toBe(0);
  });
});
