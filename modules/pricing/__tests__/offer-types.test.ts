import type { HttpClient, Tenant, TestApp } from '../../../test/support/app';
import { withTwoTenants } from '../../../test/support/two-tenants';
import { makeUser } from '../../../test/support/users';
import { unique } from '../../../test/support/factories';

let app: TestApp;
let t: Tenant;
let other: Tenant;
let member: HttpClient;
let readOnly: HttpClient;
withTwoTenants((s) => ({ app, t, other } = s));
beforeAll(async () => {
  member = (await makeUser(app, t.workspaceId, 'member')).http;
  readOnly = await app.key(t.workspaceId, ['read'], 'owner');
});

const BASE = '/api/v1/offer-types';
const painting = (extra: Record<string, unknown> = {}) => ({
  name: `Painting ${unique()}`,
  requiredInputFields: [
    { fieldId: 'area', label: 'Area', type: 'number', unit: 'm²', required: true, min: 0 },
    { fieldId: 'coats', label: 'Coats', type: 'select', options: [1, 2, 3], defaultValue: 2 },
    { fieldId: 'rush', label: 'Rush', type: 'checkbox' },
    { fieldId: 'hours', label: 'Hours', type: 'computed', expression: 'roundTo(area * coats * 0.25, 2)' },
  ],
  pricingRules: {
    vatRate: 25,
    currency: 'DKK',
    vatDisplayMode: 'excl',
    products: [
      {
        id: 'paint',
        name: 'Paint',
        unitPrice: 60,
        unit: 'l',
        pricingType: 'advanced',
        tieredPricing: {
          mode: 'volume',
          tiers: [
            { upTo: 20, unitPrice: 60 },
            { upTo: null, unitPrice: 50 },
          ],
        },
      },
    ],
    rules: [
      {
        name: 'Labour',
        then: [{ type: 'add_line', name: 'Labour', quantityExpression: 'hours', unitPrice: 450, unit: 'hours' }],
      },
      {
        name: 'Paint',
        then: [{ type: 'add_product', productId: 'paint', quantityExpression: 'ceil(area * coats / 8)' }],
      },
      {
        name: 'Rush',
        when: { all: [{ subject: 'field.rush', operator: 'is_true' }] },
        then: [{ type: 'percent_surcharge', percent: 20 }],
      },
      {
        name: 'Cap',
        when: { all: [{ subject: 'offer.manualDiscountPercent', operator: 'gt', value: 25 }] },
        then: [{ type: 'block', message: 'discount needs approval' }],
      },
    ],
  },
  ...extra,
});
const create = async (body: Record<string, unknown>, http = t.http) => {
  const res = await http.post(BASE, body);
  if (res.status !== 201) throw new Error(`create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Record<string, any>;
};

describe('offer types CRUD', () => {
  it('creates with generated slug and rule id/order/phase, reads, patches and deletes', async () => {
    const made = await create(painting({ name: 'Maling & Tapet Ærø' }));
    expect(made).toMatchObject({
      name: 'Maling & Tapet Ærø',
      slug: 'maling-tapet-aeroe',
      isDefault: false,
      isActive: true,
      defaultTemplateId: null,
      offerSettings: {},
      customPlaceholders: [],
    });
    expect(made.pricingRules.rules.map((r: any) => [r.id, r.order, r.phase])).toEqual([
      ['rule-1', 10, 'lines'],
      ['rule-2', 20, 'lines'],
      ['rule-3', 30, 'adjustments'],
      ['rule-4', 40, 'totals'],
    ]);
    expect(made.ruleSummaries[2]).toMatchObject({
      id: 'rule-3',
      summary: 'adjustments #30: when field.rush is true → 20% surcharge',
    });
    const second = await create(painting({ name: 'Maling & Tapet Ærø' }));
    expect(second.slug).toBe('maling-tapet-aeroe-2');

    const got = await t.http.get(`${BASE}/${made._id}`);
    expect(got.body.data.ruleSummaries).toBeUndefined();
    expect(got.body.data.pricingRules).toEqual(made.pricingRules);
    expect((await t.http.get(`${BASE}/${made._id}?describe=true`)).body.data.ruleSummaries).toHaveLength(4);

    // VAT settings merge; rules, products and fields stay unless given.
    const unknownTemplate = await t.http.patch(`${BASE}/${made._id}`, {
      defaultTemplateId: '0123456789abcdef01234567',
    });
    expect(unknownTemplate.status).toBe(400);
    expect(unknownTemplate.body.details).toEqual([
      { path: 'defaultTemplateId', error: 'no offer template with id 0123456789abcdef01234567 in this workspace' },
    ]);
    const template = (await t.http.post('/api/v1/offer-templates', { name: 'Painting' })).body.data;
    const vat = await t.http.patch(`${BASE}/${made._id}`, {
      pricingRules: { vatRate: 12.5 },
      description: 'Indoor',
      defaultTemplateId: template._id,
    });
    expect(vat.status).toBe(200);
    expect(vat.body.data.pricingRules).toMatchObject({
      vatRate: 12.5,
      currency: 'DKK',
      vatDisplayMode: 'excl',
      rules: made.pricingRules.rules,
      products: made.pricingRules.products,
    });
    expect(vat.body.data).toMatchObject({ description: 'Indoor', defaultTemplateId: template._id });
    // Arrays replace whole.
    const rules = await t.http.patch(`${BASE}/${made._id}`, {
      pricingRules: { rules: [{ name: 'Only', then: [{ type: 'warn', message: 'hi' }] }] },
      requiredInputFields: [{ fieldId: 'x', label: 'X', type: 'text' }],
    });
    expect(rules.body.data.pricingRules.rules).toEqual([
      expect.objectContaining({ id: 'rule-1', name: 'Only', phase: 'totals', order: 10 }),
    ]);
    expect(rules.body.data.pricingRules.vatRate).toBe(12.5);
    expect(rules.body.data.requiredInputFields).toEqual([{ fieldId: 'x', label: 'X', type: 'text' }]);

    expect((await t.http.delete(`${BASE}/${made._id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`${BASE}/${made._id}`)).status).toBe(404);
    expect((await t.http.patch(`${BASE}/${made._id}`, { name: 'x' })).status).toBe(404);
  });

  it('keeps one default per workspace and a given slug unique', async () => {
    const a = await create(painting({ isDefault: true }));
    const b = await create(painting({ isDefault: true }));
    expect((await t.http.get(`${BASE}/${a._id}`)).body.data.isDefault).toBe(false);
    expect((await t.http.patch(`${BASE}/${a._id}`, { isDefault: true })).body.data.isDefault).toBe(true);
    expect((await t.http.get(`${BASE}/${b._id}`)).body.data.isDefault).toBe(false);
    const all = (await t.http.get(`${BASE}?limit=100&includeInactive=true`)).body.data;
    expect(all.filter((x: any) => x.isDefault)).toHaveLength(1);
    const slug = `custom-${unique()}`;
    await create(painting({ slug }));
    const dup = await t.http.post(BASE, painting({ slug }));
    expect([dup.status, dup.body.details]).toEqual([
      400,
      [{ path: 'slug', error: 'is already used by another offer type' }],
    ]);
  });

  it('concurrent defaults leave exactly one default (a loser of the race gets 409)', async () => {
    const fresh = await app.tenant();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => fresh.http.post(BASE, painting({ isDefault: true }))),
    );
    expect(results.every((r) => r.status === 201 || r.status === 409)).toBe(true);
    expect(results.some((r) => r.status === 201)).toBe(true);
    const all = (await fresh.http.get(`${BASE}?limit=100`)).body.data;
    expect(all.filter((x: any) => x.isDefault)).toHaveLength(1);
  });

  it('concurrent creates with one name get distinct generated slugs', async () => {
    const name = `Same name ${unique()}`;
    const results = await Promise.all(Array.from({ length: 5 }, () => t.http.post(BASE, painting({ name }))));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(results.map((r) => r.body.data.slug)).size).toBe(5);
  });

  it('lists active types, includeInactive, pages with limit up to 100', async () => {
    const fresh = await app.tenant();
    const active = await create(painting(), fresh.http);
    const inactive = await create(painting({ isActive: false }), fresh.http);
    const ids = async (q = '') => (await fresh.http.get(`${BASE}${q}`)).body.data.map((x: any) => x._id);
    expect(await ids()).toEqual([active._id]);
    expect(await ids('?includeInactive=true')).toEqual([inactive._id, active._id]);
    const page = await fresh.http.get(`${BASE}?includeInactive=true&limit=1&page=2`);
    expect(page.body).toMatchObject({ page: 2, limit: 1, total: 2, data: [{ _id: active._id }] });
    expect((await fresh.http.get(`${BASE}?limit=100`)).status).toBe(200);
    const over = await fresh.http.get(`${BASE}?limit=101`);
    expect([over.status, over.body.details]).toEqual([400, [{ path: 'limit', error: 'limit must be at most 100' }]]);
    expect((await fresh.http.get(`${BASE}?includeInactive=maybe`)).status).toBe(400);
  });

  it('writes need the admin or owner role and the write scope; reads and read-only checks do not', async () => {
    const made = await create(painting());
    for (const [http, label] of [
      [member, 'member'],
      [readOnly, 'read-only key'],
    ] as const) {
      expect([label, (await http.post(BASE, painting())).status]).toEqual([label, 403]);
      expect([label, (await http.patch(`${BASE}/${made._id}`, { name: 'x' })).status]).toEqual([label, 403]);
      expect([label, (await http.delete(`${BASE}/${made._id}`)).status]).toEqual([label, 403]);
      expect([label, (await http.get(`${BASE}/${made._id}`)).status]).toEqual([label, 200]);
      expect([label, (await http.post(`${BASE}/validate`, { pricingRules: { rules: [] } })).status]).toEqual([
        label,
        200,
      ]);
      expect([
        label,
        (await http.post(`${BASE}/simulate`, { offerTypeId: made._id, fields: { area: 10 } })).status,
      ]).toEqual([label, 200]);
    }
    const admin = (await makeUser(app, t.workspaceId, 'admin')).http;
    expect((await admin.post(BASE, painting())).status).toBe(201);
    expect((await app.anonymous.get(BASE)).status).toBe(401);
  });

  it('answers 400 with details[{ path, error }] for every kind of invalid offer type', async () => {
    const rules = (...r: unknown[]) => ({ name: 'Bad', pricingRules: { rules: r } });
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{}, 'name', /required|expected string/i],
      [{ name: '' }, 'name', /required/],
      [
        { name: 'x', requiredInputFields: [{ fieldId: 'a', label: 'A', type: 'weird' }] },
        'requiredInputFields.0.type',
        /must be one of number, text, select, checkbox, radio, slider, computed/,
      ],
      [
        { name: 'x', requiredInputFields: [{ fieldId: '1a', label: 'A', type: 'number' }] },
        'requiredInputFields.0.fieldId',
        /must start with a letter/,
      ],
      [
        { name: 'x', requiredInputFields: [{ fieldId: 'a', label: 'A', type: 'select' }] },
        'requiredInputFields.0.options',
        /needs options/,
      ],
      [
        {
          name: 'x',
          requiredInputFields: [
            { fieldId: 'a', label: 'A', type: 'number' },
            { fieldId: 'a', label: 'B', type: 'number' },
          ],
        },
        'requiredInputFields.1.fieldId',
        /duplicate/,
      ],
      [
        { name: 'x', requiredInputFields: [{ fieldId: 'c', label: 'C', type: 'computed', expression: 'constructor' }] },
        'requiredInputFields.0.expression',
        /not allowed/,
      ],
      [
        { name: 'x', requiredInputFields: [{ fieldId: 'c', label: 'C', type: 'computed', expression: 'c.__proto__' }] },
        'requiredInputFields.0.expression',
        /member access/,
      ],
      [
        { name: 'x', requiredInputFields: [{ fieldId: 'c', label: 'C', type: 'computed' }] },
        'requiredInputFields.0.expression',
        /needs an expression/,
      ],
      [
        { name: 'x', requiredInputFields: [{ fieldId: 'subtotal', label: 'S', type: 'number' }] },
        'requiredInputFields.0.fieldId',
        /reserved/,
      ],
      [{ name: 'x', requiredInputFields: 'nope' }, 'requiredInputFields', /array/],
      [
        rules({ name: 'r', then: [{ type: 'explode' }] }),
        'pricingRules.rules.0.then.0.type',
        /type must be one of add_line/,
      ],
      [rules({ name: 'r', then: [] }), 'pricingRules.rules.0.then', /at least one action/],
      [
        rules({
          name: 'r',
          when: { all: [{ subject: 'field.a', operator: 'resembles', value: 1 }] },
          then: [{ type: 'warn', message: 'm' }],
        }),
        'pricingRules.rules.0.when.all.0.operator',
        /must be one of equals/,
      ],
      [
        rules({
          name: 'r',
          when: { all: [{ subject: 'weather.today', operator: 'eq', value: 1 }] },
          then: [{ type: 'warn', message: 'm' }],
        }),
        'pricingRules.rules.0.when.all.0.subject',
        /unknown subject/,
      ],
      [
        rules({
          name: 'r',
          when: { all: [{ subject: 'customer.age', operator: 'eq', value: 1 }] },
          then: [{ type: 'warn', message: 'm' }],
        }),
        'pricingRules.rules.0.when.all.0.subject',
        /unknown customer subject/,
      ],
      [
        rules({
          name: 'r',
          when: { all: [{ subject: 'subtotal', operator: 'between', value: 5 }] },
          then: [{ type: 'warn', message: 'm' }],
        }),
        'pricingRules.rules.0.when.all.0.value',
        /\[min, max\]/,
      ],
      [
        rules({ name: 'r', then: [{ type: 'add_line', name: 'L', unitPriceExpression: 'toString' }] }),
        'pricingRules.rules.0.then.0.unitPriceExpression',
        /not allowed/,
      ],
      [
        rules({ name: 'r', then: [{ type: 'add_line', name: 'L', unitPriceExpression: 'missing * 2' }] }),
        'pricingRules.rules.0.then.0.unitPriceExpression',
        /unknown variable "missing"/,
      ],
      [
        rules({ name: 'r', then: [{ type: 'add_line', name: 'L' }] }),
        'pricingRules.rules.0.then.0.unitPrice',
        /needs unitPrice or unitPriceExpression/,
      ],
      [
        rules({ name: 'r', then: [{ type: 'percent_discount', percent: 150 }] }),
        'pricingRules.rules.0.then.0.percent',
        /at most 100/,
      ],
      [
        rules({ name: 'r', phase: 'later', then: [{ type: 'warn', message: 'm' }] }),
        'pricingRules.rules.0.phase',
        /inputs, lines, adjustments, totals/,
      ],
      [
        rules(
          { id: 'same', name: 'a', then: [{ type: 'warn', message: 'm' }] },
          { id: 'same', name: 'b', then: [{ type: 'warn', message: 'm' }] },
        ),
        'pricingRules.rules.1.id',
        /duplicate/,
      ],
      [{ name: 'x', pricingRules: { vatRate: 101 } }, 'pricingRules.vatRate', /at most 100/],
      [{ name: 'x', pricingRules: { currency: 'kr' } }, 'pricingRules.currency', /3-letter/],
      [{ name: 'x', pricingRules: { vatDisplayMode: 'gross' } }, 'pricingRules.vatDisplayMode', /excl, incl, both/],
      [
        {
          name: 'x',
          pricingRules: {
            products: [
              {
                id: 'p',
                name: 'P',
                unitPrice: 1,
                tieredPricing: {
                  tiers: [
                    { upTo: null, unitPrice: 1 },
                    { upTo: 5, unitPrice: 2 },
                  ],
                },
              },
            ],
          },
        },
        'pricingRules.products.0.tieredPricing.tiers.0.upTo',
        /open-ended/,
      ],
      [{ name: 'x', defaultTemplateId: 'abc' }, 'defaultTemplateId', /24-character/],
      [{ name: 'x', isDefault: 'yes' }, 'isDefault', /boolean/],
    ];
    for (const [body, path, error] of cases) {
      const res = await t.http.post(BASE, body);
      expect([path, res.status]).toEqual([path, 400]);
      expect([path, res.body.details]).toEqual([
        path,
        expect.arrayContaining([{ path, error: expect.stringMatching(error) }]),
      ]);
      for (const d of res.body.details) expect(Object.keys(d).sort()).toEqual(['error', 'path']);
    }
    const made = await create(painting());
    const bad = await t.http.patch(`${BASE}/${made._id}`, {
      pricingRules: { rules: [{ name: 'r', then: [{ type: 'set_field', field: 'x' }] }] },
    });
    expect([bad.status, bad.body.details]).toEqual([
      400,
      [{ path: 'pricingRules.rules.0.then.0.value', error: 'set_field needs value or expression' }],
    ]);
  });

  it("another workspace's offer type is 404 and never listed", async () => {
    const mine = await create(painting());
    expect((await other.http.get(`${BASE}/${mine._id}`)).status).toBe(404);
    expect((await other.http.patch(`${BASE}/${mine._id}`, { name: 'x' })).status).toBe(404);
    expect((await other.http.delete(`${BASE}/${mine._id}`)).status).toBe(404);
    // The offer type named in the body is a reference: another workspace's one is 400 naming it.
    const simulated = await other.http.post(`${BASE}/simulate`, { offerTypeId: mine._id });
    expect([simulated.status, simulated.body.details?.[0]?.path]).toEqual([400, 'offerTypeId']);
    expect(
      (await other.http.get(`${BASE}?limit=100&includeInactive=true`)).body.data.map((x: any) => x._id),
    ).not.toContain(mine._id);
    expect((await t.http.get(`${BASE}/${mine._id}`)).status).toBe(200);
  });
});

describe('rule reference and templates', () => {
  it('serves the vocabulary', async () => {
    const res = await t.http.get(`${BASE}/rule-reference`);
    expect(res.status).toBe(200);
    const ref = res.body.data;
    expect(ref.phases.map((p: any) => p.phase)).toEqual(['inputs', 'lines', 'adjustments', 'totals']);
    expect(ref.operators.map((o: any) => o.operator)).toEqual(
      expect.arrayContaining(['equals', 'between', 'in', 'is_true']),
    );
    expect(ref.actionTypes.map((a: any) => a.type)).toEqual(
      expect.arrayContaining([
        'add_line',
        'add_product',
        'set_price',
        'percent_discount',
        'fixed_surcharge',
        'multiply_quantity',
        'set_field',
        'warn',
        'block',
        'set_vat',
      ]),
    );
    expect(ref.subjects.map((s: any) => s.subject)).toEqual(
      expect.arrayContaining([
        'field.<fieldId>',
        'customer.industry',
        'customer.postalCode',
        'offer.manualDiscountPercent',
        'subtotal',
        'line.quantity',
        'product.category',
      ]),
    );
    expect(Object.keys(ref.expressions.functions)).toEqual(
      expect.arrayContaining(['min(a, b, …)', 'round(x)', 'ceil(x)', 'floor(x)']),
    );
    expect(ref.products.tierModes).toHaveProperty('graduated');
    expect(Object.keys(ref.vat.displayModes)).toEqual(['excl', 'incl', 'both']);
  });

  it('serves starter rules per industry; unknown industry is 400', async () => {
    const all = (await t.http.get(`${BASE}/rule-templates`)).body.data;
    expect(all.industries).toEqual(['IT', 'Håndværk', 'Generelt']);
    expect(new Set(all.templates.map((x: any) => x.industry))).toEqual(new Set(['IT', 'Håndværk', 'Generelt']));
    for (const industry of ['IT', 'Håndværk', 'Generelt']) {
      const res = await t.http.get(`${BASE}/rule-templates?industry=${encodeURIComponent(industry)}`);
      expect(res.status).toBe(200);
      expect(res.body.data.templates.length).toBeGreaterThan(0);
      expect(res.body.data.templates.every((x: any) => x.industry === industry)).toBe(true);
    }
    const unknown = await t.http.get(`${BASE}/rule-templates?industry=Bakery`);
    expect([unknown.status, unknown.body.details[0].path]).toEqual([400, 'industry']);
    // A template drops into an offer type as it is.
    const tpl = all.templates.find((x: any) => x.key === 'craft-driving');
    expect(
      (
        await t.http.post(BASE, {
          name: `From template ${unique()}`,
          requiredInputFields: tpl.requiredInputFields,
          pricingRules: { rules: [tpl.rule] },
        })
      ).status,
    ).toBe(201);
  });
});

describe('validate and simulate', () => {
  it('validate reports errors, warnings and summaries and saves nothing', async () => {
    const before = (await t.http.get(`${BASE}?includeInactive=true`)).body.total;
    const res = await t.http.post(`${BASE}/validate`, {
      requiredInputFields: [
        { fieldId: 'a', label: 'A', type: 'computed', expression: 'b * 2' },
        { fieldId: 'b', label: 'B', type: 'computed', expression: 'a / 2' },
      ],
      pricingRules: {
        rules: [
          { name: 'Always', then: [{ type: 'add_line', name: 'Fee', unitPrice: 100 }] },
          {
            name: 'Ghost',
            when: { all: [{ subject: 'field.ghost', operator: 'eq', value: 1 }] },
            then: [{ type: 'add_product', productId: 'nowhere' }],
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.valid).toBe(false);
    expect(res.body.data.errors).toEqual([
      { path: 'requiredInputFields', error: expect.stringMatching(/cycle: a → b → a|cycle: b → a → b/) },
    ]);
    expect(res.body.data.warnings).toEqual(
      expect.arrayContaining([
        { path: 'pricingRules.rules.0.when', error: 'no conditions: the rule always applies' },
        { path: 'pricingRules.rules.1.when.all.0.subject', error: expect.stringMatching(/not a declared input field/) },
        { path: 'pricingRules.rules.1.then.0.productId', error: expect.stringMatching(/not in pricingRules.products/) },
      ]),
    );
    expect(res.body.data.ruleSummaries.map((s: any) => s.id)).toEqual(['rule-1', 'rule-2']);
    expect(
      (await t.http.post(`${BASE}/validate`, { pricingRules: { rules: [{ name: 'x', then: [{ type: 'nope' }] }] } }))
        .status,
    ).toBe(400);
    expect((await t.http.post(`${BASE}/validate`, { pricingRules: { rules: [] } })).body.data).toMatchObject({
      valid: true,
      errors: [],
      warnings: [],
    });
    expect((await t.http.get(`${BASE}?includeInactive=true`)).body.total).toBe(before);
  });

  it('simulates a stored offer type: lines, tiers, computed fields, surcharge, blocks and trace', async () => {
    const made = await create(painting());
    const res = await t.http.post(`${BASE}/simulate`, {
      offerTypeId: made._id,
      fields: { area: 100, coats: '2', rush: true },
      offer: { manualDiscountPercent: 30 },
      lines: [{ name: 'Scaffolding', quantity: 1, unitPrice: 999.99, vatRate: 25 }],
    });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.computedFields).toEqual({ hours: 50 });
    expect(d.lines.map((l: any) => [l.name, l.quantity, l.unitPrice, l.baseTotal, l.total])).toEqual([
      ['Scaffolding', 1, 999.99, 999.99, 1199.99], // +20% = 199.998 → 200.00
      ['Labour', 50, 450, 22500, 27000],
      ['Paint', 25, 50, 1250, 1500], // 25 l falls in the second volume tier
    ]);
    expect([d.subtotal, d.vatAmount, d.total]).toEqual([29699.99, 7425, 37124.99]);
    expect(d.blocked).toBe(true);
    expect(d.blocks).toEqual([{ ruleId: 'rule-4', ruleName: 'Cap', message: 'discount needs approval' }]);
    expect(d.trace.map((x: any) => [x.ruleId, x.matched])).toEqual([
      ['rule-1', true],
      ['rule-2', true],
      ['rule-3', true],
      ['rule-4', true],
    ]);
    expect(d.trace[2].effects).toHaveLength(3);
    expect(d.warnings).toEqual([]);
  });

  it('simulates a draft; input type errors and bad combinations are 400; missing required values warn', async () => {
    const draft = {
      requiredInputFields: [{ fieldId: 'n', label: 'N', type: 'number', required: true }],
      pricingRules: {
        vatDisplayMode: 'both',
        rules: [{ name: 'L', then: [{ type: 'add_line', name: 'Item', quantityExpression: 'n', unitPrice: 8 }] }],
      },
    };
    const ok = await t.http.post(`${BASE}/simulate`, {
      offerType: draft,
      fields: { n: 3 },
      customer: { industry: 'IT', country: 'DK', postalCode: '8000', isExisting: false },
    });
    expect(ok.body.data.lines[0].display).toEqual({
      mode: 'both',
      excl: { unitPrice: 8, total: 24 },
      incl: { unitPrice: 10, total: 30 },
    });
    const missing = await t.http.post(`${BASE}/simulate`, { offerType: draft, fields: {} });
    expect(missing.body.data.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ message: 'required field "n" has no value' })]),
    );
    const cases: [Record<string, unknown>, string][] = [
      [{ offerType: draft, fields: { n: 'three' } }, 'fields.n'],
      [{ fields: {} }, 'offerTypeId'],
      [{ offerTypeId: '0123456789abcdef01234567', offerType: draft }, 'offerTypeId'],
      [
        {
          offerType: {
            pricingRules: {
              rules: [{ name: 'x', then: [{ type: 'add_line', name: 'L', unitPriceExpression: '__proto__' }] }],
            },
          },
        },
        'offerType.pricingRules.rules.0.then.0.unitPriceExpression',
      ],
      [{ offerType: draft, lines: [{ quantity: 1 }] }, 'lines.0'],
      [{ offerType: draft, offer: { manualDiscountPercent: 101 } }, 'offer.manualDiscountPercent'],
      [{ offerType: draft, customer: { isExisting: 'yes' } }, 'customer.isExisting'],
    ];
    for (const [body, path] of cases) {
      const res = await t.http.post(`${BASE}/simulate`, body);
      expect([path, res.status, res.body.details?.map((x: any) => x.path)]).toEqual([
        path,
        400,
        expect.arrayContaining([path]),
      ]);
    }
    expect((await t.http.post(`${BASE}/simulate`, { offerTypeId: '0123456789abcdef01234567' })).status).toBe(400);
    const huge = await t.http.post(`${BASE}/simulate`, {
      offerType: {},
      lines: [{ name: 'Huge', unitPrice: 10_000_000_000, quantity: 1_000_000 }],
    });
    expect([huge.status, huge.body.error]).toEqual([400, expect.stringMatching(/supported range/)]);
  });
});
