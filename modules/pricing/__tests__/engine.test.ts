import { evaluatePricing, type Evaluation } from '../engine';
import { compileExpression } from '../expressions';
import { inputFieldsSchema, pricingRulesSchema, type RuleInput } from '../pricing.schemas';
import { RULE_TEMPLATES } from '../rule-templates';
import { normalizePricing, validateOfferType } from '../validate';
import {
  AmountRangeError,
  fromMinor,
  percentOf,
  percentScaled,
  toMinor,
  timesQuantity,
  qtyOf,
} from '../../../platform/shared/money';

interface Setup {
  rules?: unknown[];
  inputFields?: unknown[];
  fields?: Record<string, string | number | boolean | null>;
  lines?: Record<string, unknown>[];
  customer?: Record<string, unknown>;
  offer?: Record<string, unknown>;
  pricing?: Record<string, unknown>;
}

function run(setup: Setup): Evaluation {
  // Without declared fields, each given value is declared by its type (so expressions may read it).
  const declared = Object.entries(setup.fields ?? {}).map(([fieldId, v]) => ({
    fieldId,
    label: fieldId,
    type: typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'checkbox' : 'text',
  }));
  const inputFields = inputFieldsSchema.parse(setup.inputFields ?? declared);
  const pricing = normalizePricing(pricingRulesSchema.parse({ rules: setup.rules ?? [], ...setup.pricing }));
  const report = validateOfferType(inputFields, pricing);
  if (report.errors.length) throw new Error(`invalid setup: ${JSON.stringify(report.errors)}`);
  return evaluatePricing({
    inputFields,
    pricing,
    fields: setup.fields,
    lines: setup.lines as never,
    customer: setup.customer,
    offer: setup.offer,
  });
}

const line = (name: string, unitPrice: number, quantity = 1, extra: Record<string, unknown> = {}) => ({
  name,
  unitPrice,
  quantity,
  ...extra,
});
const warnWhen = (condition: Record<string, unknown>): RuleInput => ({
  name: 'probe',
  when: { all: [condition as never] },
  then: [{ type: 'warn', message: 'hit' }],
});
const fired = (r: Evaluation) => r.warnings.some((w) => w.message === 'hit');

describe('money', () => {
  it.each([
    [1.005, 101],
    [0.125, 13],
    [-0.125, -13],
    [19.99, 1999],
    [0.1 + 0.2, 30],
    [1e-7, 0],
    [123456789.12, 12345678912],
  ])('toMinor(%p) = %p (half away from zero, no float drift)', (major, minor) => expect(toMinor(major)).toBe(minor));
  it('percentages and quantities are exact', () => {
    expect(percentOf(1999, percentScaled(12.5))).toBe(250); // 249.875 → 250
    expect(percentOf(-1999, percentScaled(12.5))).toBe(-250);
    expect(timesQuantity(333, qtyOf(0.3))).toBe(100); // 99.9 → 100
    expect(fromMinor(toMinor(0.1) * 3)).toBe(0.3);
  });
});

describe('operators', () => {
  const fields = { material: 'Wood', area: 50, tags: 'roof,wall', rush: true, empty: '' };
  it.each<[string, Record<string, unknown>, boolean]>([
    ['equals is case-insensitive', { subject: 'field.material', operator: 'equals', value: 'wood' }, true],
    ['equals numbers', { subject: 'field.area', operator: 'eq', value: 50 }, true],
    ['not_equals', { subject: 'field.material', operator: 'not_equals', value: 'steel' }, true],
    ['greater_than', { subject: 'field.area', operator: 'greater_than', value: 49.99 }, true],
    ['greater_than is strict', { subject: 'field.area', operator: 'gt', value: 50 }, false],
    ['greater_than_or_equal', { subject: 'field.area', operator: 'gte', value: 50 }, true],
    ['less_than', { subject: 'field.area', operator: 'lt', value: 50 }, false],
    ['less_than_or_equal', { subject: 'field.area', operator: '<=', value: 50 }, true],
    ['between inclusive', { subject: 'field.area', operator: 'between', value: [50, 60] }, true],
    ['between outside', { subject: 'field.area', operator: 'between', value: [51, 60] }, false],
    ['in', { subject: 'field.material', operator: 'in', value: ['steel', 'WOOD'] }, true],
    ['not_in', { subject: 'field.material', operator: 'not_in', value: ['steel'] }, true],
    ['contains', { subject: 'field.tags', operator: 'contains', value: 'ROOF' }, true],
    ['not_contains', { subject: 'field.tags', operator: 'not_contains', value: 'floor' }, true],
    ['starts_with', { subject: 'field.material', operator: 'starts_with', value: 'wo' }, true],
    ['is_empty on ""', { subject: 'field.empty', operator: 'is_empty' }, true],
    ['is_empty on a missing field', { subject: 'field.nothing', operator: 'is_empty' }, true],
    ['is_not_empty', { subject: 'field.material', operator: 'is_not_empty' }, true],
    ['is_true', { subject: 'field.rush', operator: 'is_true' }, true],
    ['is_false', { subject: 'field.rush', operator: 'is_false' }, false],
    ['numeric operator on text never matches', { subject: 'field.material', operator: 'gt', value: 1 }, false],
    ['customer subject', { subject: 'customer.country', operator: 'equals', value: 'dk' }, true],
    ['customer.isExisting', { subject: 'customer.isExisting', operator: 'is_true' }, true],
    ['offer.manualDiscountPercent', { subject: 'offer.manualDiscountPercent', operator: 'gte', value: 10 }, true],
    ['expression condition', { expression: 'area * 2 > 99 and rush' }, true],
  ])('%s', (_name, condition, expected) => {
    expect(
      fired(
        run({
          rules: [warnWhen(condition)],
          fields,
          customer: { country: 'DK', isExisting: true },
          offer: { manualDiscountPercent: 10 },
        }),
      ),
    ).toBe(expected);
  });

  // Fields a = 1, b = 2; the rule warns when its condition holds.
  const firesWith = (when: unknown) =>
    fired(run({ fields: { a: 1, b: 2 }, rules: [{ name: 'probe', when, then: [{ type: 'warn', message: 'hit' }] }] }));
  const field = (name: string, operator: string, value: number) => ({ subject: `field.${name}`, operator, value });
  it.each<[string, unknown, boolean]>([
    ['all with one condition false', { all: [field('a', 'eq', 1), field('b', 'eq', 3)] }, false],
    ['any with one condition true', { any: [field('a', 'eq', 9), field('b', 'eq', 2)] }, true],
    [
      'an any group nested in all',
      { all: [field('a', 'eq', 1), { any: [field('b', 'eq', 5), field('b', 'lt', 3)] }] },
      true,
    ],
    ['all and any side by side, the any false', { all: [field('a', 'eq', 1)], any: [field('b', 'eq', 5)] }, false],
  ])('all needs every condition, any at least one; groups nest: %s', (_name, when, expected) =>
    expect(firesWith(when)).toBe(expected),
  );
});

describe('actions', () => {
  it.each<
    [
      string,
      Setup,
      Partial<{ subtotal: number; vatAmount: number; total: number; lineTotals: number[]; quantities: number[] }>,
    ]
  >([
    [
      'add_line with a quantity expression',
      {
        fields: { h: 2.5 },
        rules: [{ name: 'x', then: [{ type: 'add_line', name: 'Work', quantityExpression: 'h * 2', unitPrice: 100 }] }],
      },
      { subtotal: 500, lineTotals: [500] },
    ],
    [
      'add_line with quantity 0 adds nothing',
      {
        fields: { h: 0 },
        rules: [{ name: 'x', then: [{ type: 'add_line', name: 'Work', quantityExpression: 'h', unitPrice: 100 }] }],
      },
      { subtotal: 0, lineTotals: [] },
    ],
    [
      'add_product uses the product price',
      {
        pricing: { products: [{ id: 'p1', name: 'Box', unitPrice: 19.99 }] },
        rules: [{ name: 'x', then: [{ type: 'add_product', productId: 'p1', quantity: 3 }] }],
      },
      { lineTotals: [59.97] },
    ],
    [
      'set_price on the current line',
      {
        lines: [line('A', 10), line('B', 10)],
        rules: [
          {
            name: 'x',
            when: { all: [{ subject: 'line.name', operator: 'eq', value: 'b' }] },
            then: [{ type: 'set_price', unitPrice: 7.5 }],
          },
        ],
      },
      { lineTotals: [10, 7.5] },
    ],
    [
      'set_quantity on a target',
      {
        lines: [line('A', 10, 1, { category: 'materials' }), line('B', 10)],
        rules: [{ name: 'x', then: [{ type: 'set_quantity', quantity: 4, target: { category: 'Materials' } }] }],
      },
      { quantities: [4, 1] },
    ],
    [
      'multiply_quantity',
      {
        lines: [line('Tiles', 100, 20)],
        rules: [
          {
            name: 'waste',
            when: { all: [{ subject: 'line.name', operator: 'eq', value: 'tiles' }] },
            then: [{ type: 'multiply_quantity', factor: 1.1 }],
          },
        ],
      },
      { quantities: [22], lineTotals: [2200] },
    ],
    [
      'percent_discount on every line',
      {
        lines: [line('A', 100), line('B', 50)],
        rules: [{ name: 'x', then: [{ type: 'percent_discount', percent: 10 }] }],
      },
      { lineTotals: [90, 45], subtotal: 135 },
    ],
    [
      'percent_surcharge on one line',
      {
        lines: [line('A', 100), line('B', 50)],
        rules: [
          {
            name: 'x',
            when: { all: [{ subject: 'line.unitPrice', operator: 'gt', value: 60 }] },
            then: [{ type: 'percent_surcharge', percent: 25 }],
          },
        ],
      },
      { lineTotals: [125, 50] },
    ],
    [
      'percentages of one line add up, not compound',
      {
        lines: [line('A', 100)],
        rules: [
          { name: 'a', then: [{ type: 'percent_discount', percent: 10 }] },
          { name: 'b', then: [{ type: 'percent_discount', percent: 10 }] },
        ],
      },
      { lineTotals: [80] },
    ],
    [
      'fixed_discount on the offer is an adjustment',
      { lines: [line('A', 100)], rules: [{ name: 'x', then: [{ type: 'fixed_discount', amount: 30 }] }] },
      { lineTotals: [100], subtotal: 70, vatAmount: 17.5, total: 87.5 },
    ],
    [
      'fixed_surcharge per line',
      {
        lines: [line('A', 100), line('B', 100)],
        rules: [{ name: 'x', then: [{ type: 'fixed_surcharge', amount: 5, target: 'all' }] }],
      },
      { lineTotals: [105, 105] },
    ],
    [
      'minimum_total lifts the subtotal',
      { lines: [line('A', 400)], rules: [{ name: 'min', then: [{ type: 'minimum_total', amount: 1500 }] }] },
      { subtotal: 1500 },
    ],
    [
      'minimum_total leaves a larger subtotal',
      { lines: [line('A', 4000)], rules: [{ name: 'min', then: [{ type: 'minimum_total', amount: 1500 }] }] },
      { subtotal: 4000 },
    ],
    [
      'set_vat on the offer',
      { lines: [line('A', 100)], rules: [{ name: 'export', then: [{ type: 'set_vat', rate: 0 }] }] },
      { vatAmount: 0, total: 100 },
    ],
    [
      'set_field feeds later rules',
      {
        rules: [
          { name: 'f', then: [{ type: 'set_field', field: 'hours', expression: '3 * 4' }] },
          { name: 'l', then: [{ type: 'add_line', name: 'Work', quantityExpression: 'hours', unitPrice: 10 }] },
        ],
      },
      { subtotal: 120 },
    ],
    [
      'expressions read subtotal and manualDiscountPercent',
      {
        offer: { manualDiscountPercent: 15 },
        lines: [line('A', 200)],
        rules: [{ name: 'manual', then: [{ type: 'percent_discount', expression: 'manualDiscountPercent' }] }],
      },
      { subtotal: 170 },
    ],
  ])('%s', (_name, setup, expected) => {
    const r = run(setup);
    if (expected.subtotal !== undefined) expect(r.subtotal).toBe(expected.subtotal);
    if (expected.vatAmount !== undefined) expect(r.vatAmount).toBe(expected.vatAmount);
    if (expected.total !== undefined) expect(r.total).toBe(expected.total);
    if (expected.lineTotals) expect(r.lines.map((l) => l.total)).toEqual(expected.lineTotals);
    if (expected.quantities) expect(r.lines.map((l) => l.quantity)).toEqual(expected.quantities);
  });

  it('warn and block are collected with their rule; blocked is true', () => {
    const r = run({
      offer: { manualDiscountPercent: 40 },
      rules: [
        {
          id: 'cap',
          name: 'Cap',
          when: { all: [{ subject: 'offer.manualDiscountPercent', operator: 'gt', value: 25 }] },
          then: [
            { type: 'block', message: 'needs approval' },
            { type: 'warn', message: 'large discount' },
          ],
        },
      ],
    });
    expect(r.blocked).toBe(true);
    expect(r.blocks).toEqual([{ ruleId: 'cap', ruleName: 'Cap', message: 'needs approval' }]);
    expect(r.warnings).toEqual([{ ruleId: 'cap', ruleName: 'Cap', message: 'large discount' }]);
  });
});

describe('phases, order and trace', () => {
  it('runs inputs → lines → adjustments → totals whatever the list order, then by order', () => {
    const r = run({
      fields: {},
      rules: [
        {
          id: 'total-check',
          name: 'check',
          phase: 'totals',
          when: { all: [{ subject: 'subtotal', operator: 'eq', value: 90 }] },
          then: [{ type: 'warn', message: 'hit' }],
        },
        { id: 'discount', name: 'discount', then: [{ type: 'percent_discount', percent: 10 }] },
        {
          id: 'second-line',
          name: 'b',
          order: 20,
          then: [{ type: 'add_line', name: 'B', unitPriceExpression: 'base', quantity: 1 }],
        },
        { id: 'first-line', name: 'a', order: 5, then: [{ type: 'add_line', name: 'A', unitPrice: 50 }] },
        { id: 'set-base', name: 'base', then: [{ type: 'set_field', field: 'base', value: 50 }] },
      ],
    });
    expect(r.trace.map((t) => t.ruleId)).toEqual(['set-base', 'first-line', 'second-line', 'discount', 'total-check']);
    expect(r.trace.map((t) => t.phase)).toEqual(['inputs', 'lines', 'lines', 'adjustments', 'totals']);
    expect(r.lines.map((l) => l.name)).toEqual(['A', 'B']);
    expect(fired(r)).toBe(true);
    expect(r.trace[3]!.effects.map((e) => e.amount)).toEqual([-5, -5]);
  });

  it('fills id, order and phase; stopProcessing skips the rest of the phase; disabled rules are skipped', () => {
    const pricing = normalizePricing(
      pricingRulesSchema.parse({
        rules: [
          { name: 'a', stopProcessing: true, then: [{ type: 'percent_discount', percent: 5 }] },
          { name: 'b', then: [{ type: 'percent_discount', percent: 50 }] },
          { name: 'c', enabled: false, then: [{ type: 'add_line', name: 'X', unitPrice: 1 }] },
        ],
      }),
    );
    expect(pricing.rules.map((r) => [r.id, r.order, r.phase])).toEqual([
      ['rule-1', 10, 'adjustments'],
      ['rule-2', 20, 'adjustments'],
      ['rule-3', 30, 'lines'],
    ]);
    const r = evaluatePricing({ inputFields: [], pricing, lines: [line('A', 100)] as never });
    expect(r.subtotal).toBe(95);
    expect(r.trace.find((t) => t.ruleId === 'rule-2')!.skipped).toBe('stopped');
    expect(r.trace.find((t) => t.ruleId === 'rule-3')!.skipped).toBe('disabled');
  });

  it('line-scoped rules run once per matching line and say which', () => {
    const r = run({
      lines: [line('A', 10, 1, { id: 'a' }), line('B', 20, 1, { id: 'b' }), line('C', 30, 1, { id: 'c' })],
      rules: [
        {
          id: 'cheap',
          name: 'cheap',
          when: { all: [{ subject: 'line.unitPrice', operator: 'lt', value: 25 }] },
          then: [{ type: 'fixed_surcharge', amount: 1 }],
        },
      ],
    });
    expect(r.trace[0]).toMatchObject({ scope: 'line', matched: true, matchedLines: ['a', 'b'] });
    expect(r.lines.map((l) => l.total)).toEqual([11, 21, 30]);
  });

  it('is deterministic', () => {
    const setup: Setup = {
      fields: { area: 33.3 },
      inputFields: [
        { fieldId: 'area', label: 'Area', type: 'number' },
        { fieldId: 'h', label: 'Hours', type: 'computed', expression: 'area / 3' },
      ],
      rules: [
        { name: 'l', then: [{ type: 'add_line', name: 'Work', quantityExpression: 'h', unitPrice: 99.99 }] },
        { name: 'd', then: [{ type: 'percent_discount', percent: 7.5 }] },
      ],
    };
    expect(run(setup)).toEqual(run(setup));
  });
});

describe('products: tiers and conditional prices', () => {
  const tiered = (mode: string) => ({
    id: 't',
    name: 'Licence',
    unitPrice: 100,
    pricingType: 'advanced',
    tieredPricing: {
      mode,
      tiers: [
        { upTo: 10, unitPrice: 100 },
        { upTo: 50, unitPrice: 80 },
        { upTo: null, unitPrice: 60 },
      ],
    },
  });
  it.each([
    ['volume', 5, 500],
    ['volume', 10, 1000],
    ['volume', 11, 880],
    ['volume', 60, 3600],
    ['graduated', 5, 500],
    ['graduated', 11, 1080],
    ['graduated', 60, 1000 + 40 * 80 + 10 * 60],
  ])('%s tiers for quantity %p → %p', (mode, quantity, total) => {
    const r = run({
      pricing: { products: [tiered(mode as string)] },
      rules: [{ name: 'x', then: [{ type: 'add_product', productId: 't', quantity }] }],
    });
    expect(r.lines[0]!.total).toBe(total);
    expect(r.lines[0]!.priceSource).toBe(`tiers:${mode}`);
    expect(r.trace[0]!.effects[0]).toMatchObject({
      action: 'add_product',
      description: `added ${quantity} × Licence (price: tiers:${mode})`,
      amount: total,
    });
  });

  it('tiers re-price when a rule changes the quantity; fixed products ignore tiers', () => {
    const r = run({
      pricing: { products: [tiered('volume')] },
      rules: [
        { name: 'x', then: [{ type: 'add_product', productId: 't', quantity: 5 }] },
        {
          name: 'm',
          phase: 'lines',
          order: 100,
          then: [{ type: 'multiply_quantity', factor: 4, target: { productId: 't' } }],
        },
      ],
    });
    expect(r.lines[0]).toMatchObject({ quantity: 20, total: 1600 });
    const fixed = run({
      pricing: { products: [{ ...tiered('volume'), pricingType: 'fixed' }] },
      rules: [{ name: 'x', then: [{ type: 'add_product', productId: 't', quantity: 20 }] }],
    });
    expect(fixed.lines[0]!.total).toBe(2000);
  });

  it('the first matching conditional price wins over tiers', () => {
    const product = {
      ...tiered('volume'),
      conditionalRules: [
        { when: { all: [{ subject: 'customer.isExisting', operator: 'is_true' }] }, unitPrice: 70, label: 'existing' },
        { when: { all: [{ subject: 'customer.country', operator: 'equals', value: 'DK' }] }, unitPrice: 90 },
      ],
    };
    const rules = [{ name: 'x', then: [{ type: 'add_product', productId: 't', quantity: 2 }] }];
    expect(
      run({ pricing: { products: [product] }, rules, customer: { isExisting: true, country: 'DK' } }).lines[0],
    ).toMatchObject({ unitPrice: 70, priceSource: 'conditional:existing' });
    expect(run({ pricing: { products: [product] }, rules, customer: { country: 'DK' } }).lines[0]).toMatchObject({
      unitPrice: 90,
      total: 180,
    });
    expect(run({ pricing: { products: [product] }, rules, customer: {} }).lines[0]).toMatchObject({
      unitPrice: 100,
      priceSource: 'tiers:volume',
    });
  });
});

describe('VAT and rounding', () => {
  it.each([
    ['excl', { mode: 'excl', unitPrice: 80, total: 160 }],
    ['incl', { mode: 'incl', unitPrice: 100, total: 200 }],
    ['both', { mode: 'both', excl: { unitPrice: 80, total: 160 }, incl: { unitPrice: 100, total: 200 } }],
  ])('vatDisplayMode %s', (mode, display) => {
    const r = run({ pricing: { vatDisplayMode: mode }, lines: [line('A', 80, 2)] });
    expect(r.lines[0]!.display).toEqual(display);
    expect([r.subtotal, r.vatAmount, r.total]).toEqual([160, 40, 200]);
  });

  it('computes VAT once per rate (no per-line drift) and rounds half away from zero', () => {
    const lines = Array.from({ length: 3 }, (_, i) => line(`L${i}`, 0.1, 1));
    const r = run({ pricing: { vatRate: 25 }, lines: [...lines, line('Food', 9.99, 1, { vatRate: 12.5 })] });
    // 0.30 × 25% = 0.075 → 0.08 (per line it would be 3 × 0.03 = 0.09); 9.99 × 12.5% = 1.24875 → 1.25
    expect(r.vatBreakdown).toEqual([
      { rate: 12.5, base: 9.99, vat: 1.25 },
      { rate: 25, base: 0.3, vat: 0.08 },
    ]);
    expect(r.amountsMinor).toEqual({ subtotal: 1029, vatAmount: 133, total: 1162 });
    expect(r.total).toBe(11.62);
  });

  it('refuses amounts beyond exact integers instead of losing cents', () => {
    expect(() => run({ lines: [line('Huge', 10_000_000_000, 1_000_000)] })).toThrow(AmountRangeError);
    expect(run({ lines: [line('Big', 1_000_000_000, 1000)] }).amountsMinor.subtotal).toBe(100_000_000_000_000);
  });

  it('a discount larger than a line clamps it to 0 with a warning', () => {
    const r = run({
      lines: [line('A', 10)],
      rules: [{ name: 'x', then: [{ type: 'fixed_discount', amount: 50, target: 'all' }] }],
    });
    expect(r.lines[0]!.total).toBe(0);
    expect(r.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/exceed/)]);
  });
});

describe('computed fields and expressions', () => {
  it('evaluates computed fields in dependency order, cleaned of float noise', () => {
    const r = run({
      inputFields: [
        { fieldId: 'total', label: 'Total', type: 'computed', expression: 'sub * 2' },
        { fieldId: 'sub', label: 'Sub', type: 'computed', expression: 'a + b' },
        { fieldId: 'a', label: 'A', type: 'number' },
        { fieldId: 'b', label: 'B', type: 'number' },
      ],
      fields: { a: 0.1, b: 0.2 },
    });
    expect(r.computedFields).toEqual({ sub: 0.3, total: 0.6 });
  });

  it('computed fields are evaluated again after the inputs phase; a value a rule set itself stays', () => {
    const r = run({
      inputFields: [
        { fieldId: 'hours', label: 'Hours', type: 'number' },
        { fieldId: 'cost', label: 'Cost', type: 'computed', expression: 'hours * rate' },
        { fieldId: 'fixed', label: 'Fixed', type: 'computed', expression: 'hours' },
      ],
      fields: { hours: 10 },
      customer: { industry: 'IT' },
      rules: [
        {
          name: 'rate',
          when: { all: [{ subject: 'customer.industry', operator: 'eq', value: 'it' }] },
          then: [
            { type: 'set_field', field: 'rate', value: 900 },
            { type: 'set_field', field: 'fixed', value: 1 },
          ],
        },
        { name: 'line', then: [{ type: 'add_line', name: 'Work', quantity: 1, unitPriceExpression: 'cost + fixed' }] },
      ],
    });
    expect(r.computedFields).toEqual({ cost: 9000, fixed: 1 });
    expect(r.subtotal).toBe(9001);
    expect(r.warnings).toEqual([]); // the first pass's "rate has no value" is not reported
  });

  it('an expression error skips the action with a warning and a trace error', () => {
    const r = run({
      fields: { x: 0 },
      rules: [{ name: 'div', then: [{ type: 'add_line', name: 'A', quantity: 1, unitPriceExpression: '100 / x' }] }],
    });
    expect(r.lines).toEqual([]);
    expect(r.warnings[0]!.message).toMatch(/finite/);
    expect(r.trace[0]!.effects[0]!.error).toMatch(/finite/);
  });

  it('a computed field without a value for its input is null with a warning', () => {
    const r = run({
      inputFields: [
        { fieldId: 'a', label: 'A', type: 'number' },
        { fieldId: 'c', label: 'C', type: 'computed', expression: 'a * 2' },
      ],
      fields: {},
    });
    expect(r.computedFields).toEqual({ c: null });
    expect(r.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/"a" has no value/)]);
  });

  it.each([
    'constructor',
    '__proto__',
    'a.constructor',
    'toString',
    'a["constructor"]',
    '[1,2]',
    'x = 1',
    'f(y) = y',
    'random()',
    'sin(a)',
    'a || "x"',
    'process',
    'this',
  ])('rejects the unsafe or unsupported expression %p', (source) => {
    expect(compileExpression(source, ['a']).ok).toBe(false);
  });

  it('validation reports bad expressions, unknown references, cycles and duplicates with paths', () => {
    const fields = inputFieldsSchema.parse([
      { fieldId: 'a', label: 'A', type: 'computed', expression: 'b + 1' },
      { fieldId: 'b', label: 'B', type: 'computed', expression: 'a + 1' },
      { fieldId: 'c', label: 'C', type: 'computed', expression: 'constructor' },
      { fieldId: 'c', label: 'C2', type: 'select' },
    ]);
    const pricing = normalizePricing(
      pricingRulesSchema.parse({
        rules: [
          {
            id: 'r',
            name: 'x',
            when: { all: [{ subject: 'customer.shoeSize', operator: 'eq', value: 1 }] },
            then: [{ type: 'add_line', name: 'X', unitPriceExpression: 'nope * 2' }],
          },
          { id: 'r', name: 'y', then: [{ type: 'set_price' }] },
        ],
      }),
    );
    const { errors } = validateOfferType(fields, pricing);
    expect(errors.map((e) => e.path)).toEqual(
      expect.arrayContaining([
        'requiredInputFields.3.fieldId',
        'requiredInputFields.3.options',
        'requiredInputFields.2.expression',
        'requiredInputFields',
        'pricingRules.rules.0.when.all.0.subject',
        'pricingRules.rules.0.then.0.unitPriceExpression',
        'pricingRules.rules.1.id',
        'pricingRules.rules.1.then.0.unitPrice',
      ]),
    );
    expect(errors.find((e) => e.path === 'requiredInputFields')!.error).toMatch(/cycle/);
    const scoped = normalizePricing(
      pricingRulesSchema.parse({
        rules: [
          {
            name: 'x',
            scope: 'offer',
            when: { all: [{ subject: 'line.name', operator: 'eq', value: 'a' }] },
            then: [{ type: 'warn', message: 'm' }],
          },
        ],
      }),
    );
    expect(validateOfferType([], scoped).errors).toEqual([
      { path: 'pricingRules.rules.0.scope', error: 'an offer-scoped rule cannot read line. or product. subjects' },
    ]);
  });

  it('every starter template validates on its own fields', () => {
    for (const t of RULE_TEMPLATES) {
      const report = validateOfferType(
        inputFieldsSchema.parse(t.requiredInputFields),
        normalizePricing(pricingRulesSchema.parse({ rules: [t.rule] })),
      );
      expect([t.key, report.errors]).toEqual([t.key, []]);
    }
  });
});
