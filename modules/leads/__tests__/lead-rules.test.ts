import {
  conditionError,
  matches,
  ROUTING_EXTRA_FIELDS,
  type Condition,
  type ConditionOperator,
  type Subject,
} from '../conditions';
import { scoreChanged, scoreLead, type ScoringRuleLike } from '../scoring';

let seq = 0;
const rule = (
  field: string,
  condition: ConditionOperator,
  value: ScoringRuleLike['value'],
  points: number,
  extra: Partial<ScoringRuleLike> = {},
): ScoringRuleLike => ({
  _id: `r${++seq}`,
  name: `rule ${seq}`,
  field,
  condition,
  value,
  points,
  isActive: true,
  ...extra,
});

const subject = (lead: Subject['lead'] = {}, contact: Subject['contact'] = null): Subject => ({ lead, contact });
const ada: Subject['contact'] = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  title: 'CTO',
  emails: ['ada@acme.dk', 'ada@home.test'],
  phones: ['+45 12 34 56 78'],
};

describe('scoreLead', () => {
  it('no rules or no match → 0 with an empty breakdown', () => {
    expect(scoreLead([], subject({ email: 'a@b.dk' }))).toEqual({ score: 0, breakdown: [] });
    expect(scoreLead([rule('hasEmail', 'equals', true, 10)], subject())).toEqual({ score: 0, breakdown: [] });
  });

  it('sums matched rules and lists each one in rule order', () => {
    const rules = [
      rule('hasEmail', 'equals', true, 10),
      rule('source', 'equals', 'web', 15),
      rule('hasPhone', 'equals', true, 5),
    ];
    const result = scoreLead(rules, subject({ email: 'a@b.dk', source: 'Web' }));
    expect(result.score).toBe(25);
    expect(result.breakdown).toEqual([
      { ruleId: rules[0]!._id, name: rules[0]!.name, field: 'hasEmail', condition: 'equals', points: 10 },
      { ruleId: rules[1]!._id, name: rules[1]!.name, field: 'source', condition: 'equals', points: 15 },
    ]);
  });

  it('negative points subtract; the total is clamped at 0 and at 100', () => {
    const lead = { email: 'a@b.dk', value: 5000 };
    expect(
      scoreLead([rule('hasEmail', 'equals', true, 30), rule('value', 'greater_than', 1000, -10)], subject(lead)).score,
    ).toBe(20);
    const low = scoreLead([rule('hasEmail', 'equals', true, 10), rule('hasValue', 'equals', true, -50)], subject(lead));
    expect(low.score).toBe(0);
    expect(low.breakdown.map((b) => b.points)).toEqual([10, -50]); // still explained
    const high = scoreLead([rule('hasEmail', 'equals', true, 60), rule('hasValue', 'equals', true, 60)], subject(lead));
    expect(high.score).toBe(100);
  });

  it('skips inactive rules', () => {
    expect(
      scoreLead([rule('hasEmail', 'equals', true, 40, { isActive: false })], subject({ email: 'a@b.dk' })),
    ).toEqual({ score: 0, breakdown: [] });
  });

  it('scoreChanged compares score and breakdown', () => {
    const r = scoreLead([rule('hasEmail', 'equals', true, 10)], subject({ email: 'x@y.dk' }));
    expect(scoreChanged({ score: 10, scoreBreakdown: r.breakdown }, r)).toBe(false);
    expect(scoreChanged({ score: 10, scoreBreakdown: [] }, r)).toBe(true);
    expect(scoreChanged({ score: 0, scoreBreakdown: r.breakdown }, r)).toBe(true);
    // Stored jsonb comes back with its keys reordered: still the same breakdown.
    const reordered = r.breakdown.map(({ points, ruleId, name, condition, field }) => ({
      points,
      ruleId,
      name,
      condition,
      field,
    }));
    expect(scoreChanged({ score: 10, scoreBreakdown: reordered }, r)).toBe(false);
    expect(scoreChanged({ score: 10, scoreBreakdown: [{ ...r.breakdown[0]!, name: 'renamed' }] }, r)).toBe(true);
  });
});

describe('matches', () => {
  const lead = {
    email: null,
    phone: '',
    value: 2500,
    source: 'Website',
    status: 'new',
    tags: ['VIP', 'newsletter'],
    customFields: { industry: 'Software', seats: 25, seatsText: '40', regions: ['dk', 'se'], active: true },
    personRef: 'p1',
    companyRef: 'c1',
  };
  const cases: [string, Condition, boolean, Subject?][] = [
    ['hasEmail false (lead has none, no contact)', { field: 'hasEmail', operator: 'equals', value: false }, true],
    ['hasEmail true via the contact', { field: 'hasEmail', operator: 'equals', value: true }, true, subject(lead, ada)],
    ['hasPhone "" counts as missing', { field: 'hasPhone', operator: 'not_equals', value: true }, true],
    ['hasValue', { field: 'hasValue', operator: 'equals', value: true }, true],
    ['hasValue false for 0', { field: 'hasValue', operator: 'equals', value: false }, true, subject({ value: 0 })],
    // On the boolean fields exists / not_exists mean true / false (a client reads hasEmail + exists as "has an
    // e-mail").
    ['hasEmail exists via the contact', { field: 'hasEmail', operator: 'exists' }, true, subject(lead, ada)],
    ['hasEmail exists is false without an e-mail', { field: 'hasEmail', operator: 'exists' }, false],
    ['hasEmail not_exists without an e-mail', { field: 'hasEmail', operator: 'not_exists' }, true],
    [
      'hasEmail not_exists with an e-mail',
      { field: 'hasEmail', operator: 'not_exists' },
      false,
      subject({ email: 'a@b.dk' }),
    ],
    ['hasPhone exists is false for ""', { field: 'hasPhone', operator: 'exists' }, false],
    ['hasValue exists', { field: 'hasValue', operator: 'exists' }, true],
    ['hasValue exists is false for 0', { field: 'hasValue', operator: 'exists' }, false, subject({ value: 0 })],
    ['hasValue not_exists for 0', { field: 'hasValue', operator: 'not_exists' }, true, subject({ value: 0 })],
    [
      'customFields false still exists',
      { field: 'customFields.off', operator: 'exists' },
      true,
      subject({ customFields: { off: false } }),
    ],
    ['source equals is case-insensitive', { field: 'source', operator: 'equals', value: 'website' }, true],
    ['source contains', { field: 'source', operator: 'contains', value: 'SITE' }, true],
    ['source not_equals', { field: 'source', operator: 'not_equals', value: 'referral' }, true],
    ['source in', { field: 'source', operator: 'in', value: ['referral', 'website'] }, true],
    ['source not_in', { field: 'source', operator: 'not_in', value: ['referral', 'website'] }, false],
    ['source not_in on a missing value', { field: 'source', operator: 'not_in', value: ['web'] }, true, subject({})],
    ['source in on a missing value', { field: 'source', operator: 'in', value: ['web'] }, false, subject({})],
    ['source exists', { field: 'source', operator: 'exists' }, true],
    ['source not_exists when missing', { field: 'source', operator: 'not_exists' }, true, subject({})],
    ['contactType person', { field: 'contactType', operator: 'equals', value: 'person' }, true],
    [
      'contactType company (company only)',
      { field: 'contactType', operator: 'equals', value: 'company' },
      true,
      subject({ companyRef: 'c1' }),
    ],
    ['contactType none', { field: 'contactType', operator: 'in', value: ['none'] }, true, subject({})],
    ['value greater_than', { field: 'value', operator: 'greater_than', value: 2499.5 }, true],
    ['value greater_than is strict', { field: 'value', operator: 'greater_than', value: 2500 }, false],
    ['value less_than', { field: 'value', operator: 'less_than', value: 3000 }, true],
    ['value less_than on a missing value', { field: 'value', operator: 'less_than', value: 3000 }, false, subject({})],
    ['value in', { field: 'value', operator: 'in', value: [1, 2500] }, true],
    ['tags equals is membership', { field: 'tags', operator: 'equals', value: 'vip' }, true],
    ['tags not_equals when present', { field: 'tags', operator: 'not_equals', value: 'vip' }, false],
    ['tags contains any tag substring', { field: 'tags', operator: 'contains', value: 'letter' }, true],
    ['tags in', { field: 'tags', operator: 'in', value: ['partner', 'newsletter'] }, true],
    ['tags not_in', { field: 'tags', operator: 'not_in', value: ['partner'] }, true],
    ['tags exists', { field: 'tags', operator: 'exists' }, true],
    ['tags not_exists on []', { field: 'tags', operator: 'not_exists' }, true, subject({ tags: [] })],
    ['customFields string equals', { field: 'customFields.industry', operator: 'equals', value: 'software' }, true],
    ['customFields number greater_than', { field: 'customFields.seats', operator: 'greater_than', value: 20 }, true],
    [
      'customFields numeric string compares as a number',
      { field: 'customFields.seatsText', operator: 'greater_than', value: 30 },
      true,
    ],
    ['customFields number equals', { field: 'customFields.seats', operator: 'equals', value: 25 }, true],
    ['customFields array in', { field: 'customFields.regions', operator: 'in', value: ['no', 'se'] }, true],
    ['customFields boolean', { field: 'customFields.active', operator: 'equals', value: true }, true],
    ['customFields missing key exists', { field: 'customFields.nope', operator: 'exists' }, false],
    ['customFields missing key not_exists', { field: 'customFields.nope', operator: 'not_exists' }, true],
    ['contact.firstName', { field: 'contact.firstName', operator: 'equals', value: 'ada' }, true, subject(lead, ada)],
    ['contact.title in', { field: 'contact.title', operator: 'in', value: ['CEO', 'CTO'] }, true, subject(lead, ada)],
    [
      'contact.email matches any of the emails',
      { field: 'contact.email', operator: 'equals', value: 'ada@home.test' },
      true,
      subject(lead, ada),
    ],
    [
      'contact.email contains a domain',
      { field: 'contact.email', operator: 'contains', value: '@acme.dk' },
      true,
      subject(lead, ada),
    ],
    [
      'contact.phone ignores formatting',
      { field: 'contact.phone', operator: 'equals', value: '+4512345678' },
      true,
      subject(lead, ada),
    ],
    ['contact.* without a contact', { field: 'contact.firstName', operator: 'exists' }, false],
    [
      'contact.lastName not_equals without a contact',
      { field: 'contact.lastName', operator: 'not_equals', value: 'x' },
      true,
    ],
  ];
  it.each(cases)('%s', (...[, cond, expected, s]) => {
    expect(matches(s ?? subject(lead), cond)).toBe(expected);
  });
});

describe('conditionError', () => {
  const bad: [string, { field: string; operator: ConditionOperator; value?: unknown }, RegExp][] = [
    ['unknown field', { field: 'colour', operator: 'equals', value: 'x' }, /^field: unknown field "colour"/],
    ['unknown contact field', { field: 'contact.age', operator: 'equals', value: 1 }, /^field: unknown/],
    ['empty custom key', { field: 'customFields.', operator: 'exists' }, /^field: unknown/],
    ['score is routing-only', { field: 'score', operator: 'greater_than', value: 5 }, /^field: unknown/],
    ['value with exists', { field: 'source', operator: 'exists', value: 'x' }, /^value: must be omitted for exists/],
    [
      'value with not_exists',
      { field: 'tags', operator: 'not_exists', value: [] },
      /^value: must be omitted for not_exists/,
    ],
    ['in without array', { field: 'source', operator: 'in', value: 'web' }, /^value: must be a non-empty array for in/],
    [
      'not_in with empty array',
      { field: 'source', operator: 'not_in', value: [] },
      /^value: must be a non-empty array for not_in/,
    ],
    [
      'in with 101 values',
      { field: 'source', operator: 'in', value: Array.from({ length: 101 }, (_, i) => `s${i}`) },
      /^value: at most 100/,
    ],
    [
      'in with a number on a text field',
      { field: 'source', operator: 'in', value: ['web', 3] },
      /^value: each item must be a non-empty string/,
    ],
    [
      'greater_than with a string',
      { field: 'value', operator: 'greater_than', value: '10' },
      /^value: must be a number for greater_than/,
    ],
    [
      'greater_than on text',
      { field: 'source', operator: 'greater_than', value: 1 },
      /^condition: "greater_than" does not apply to source/,
    ],
    [
      'contains on a boolean',
      { field: 'hasEmail', operator: 'contains', value: 'x' },
      /^condition: "contains" does not apply/,
    ],
    ['contains on a number', { field: 'value', operator: 'contains', value: '1' }, /^condition: /],
    ['contains without value', { field: 'source', operator: 'contains' }, /^value: must be a non-empty string/],
    ['equals without value', { field: 'source', operator: 'equals' }, /^value: is required for equals/],
    [
      'boolean field with a string',
      { field: 'hasEmail', operator: 'equals', value: 'yes' },
      /^value: must be true or false/,
    ],
    ['number field with a string', { field: 'value', operator: 'equals', value: 'ten' }, /^value: must be a number/],
    [
      'contactType outside its values',
      { field: 'contactType', operator: 'equals', value: 'robot' },
      /^value: must be one of person, company, none/,
    ],
    [
      'custom field with an object',
      { field: 'customFields.x', operator: 'equals', value: { a: 1 } },
      /^value: must be a string, number or boolean/,
    ],
  ];
  it.each(bad)('%s', (_label, cond, message) => {
    expect(conditionError(cond)).toMatch(message);
  });

  const good: { field: string; operator: ConditionOperator; value?: unknown }[] = [
    { field: 'hasEmail', operator: 'exists' },
    { field: 'hasPhone', operator: 'not_exists' },
    { field: 'hasValue', operator: 'exists', value: null },
    { field: 'hasEmail', operator: 'equals', value: true },
    { field: 'source', operator: 'exists' },
    { field: 'source', operator: 'exists', value: null },
    { field: 'value', operator: 'in', value: [1, 2] },
    { field: 'customFields.tier', operator: 'less_than', value: 3 },
    { field: 'customFields.' + 'k'.repeat(100), operator: 'exists' },
    { field: 'contact.email', operator: 'contains', value: '@acme.dk' },
    { field: 'contactType', operator: 'not_in', value: ['none'] },
    { field: 'source', operator: 'in', value: Array.from({ length: 100 }, (_, i) => `s${i}`) },
  ];
  it.each(good)('accepts %j', (cond) => {
    expect(conditionError(cond)).toBeNull();
  });

  it('routing conditions may also test the score', () => {
    expect(conditionError({ field: 'score', operator: 'greater_than', value: 50 }, ROUTING_EXTRA_FIELDS)).toBeNull();
    expect(conditionError({ field: 'customFields.' + 'k'.repeat(101), operator: 'exists' })).toMatch(/^field: unknown/);
  });
});
