import { CONDITION_OPERATORS, type ConditionDataType, type ConditionOperator } from '../definition.schemas';
import { evaluateCondition, evaluateConditions, explainConditions, toArray, toBoolean } from '../conditions.pure';

// 2024-06-15 10:00 in Copenhagen (08:00 UTC).
const NOW = new Date('2024-06-15T08:00:00Z');
const opts = { now: NOW };

type Row = [ConditionOperator, unknown, unknown, ConditionDataType | undefined, boolean];

/** Every operator with positive and negative cases; `actual` is put at lead.x. */
const rows: Row[] = [
  ['equals', 'Won', 'won', undefined, true],
  ['equals', ' won ', 'won', undefined, true],
  ['equals', 'won', 'lost', undefined, false],
  ['equals', 42, '42', undefined, true],
  ['equals', 42, 42.5, undefined, false],
  ['equals', '42', 42, 'number', true],
  ['equals', '042', '42', undefined, false],
  ['equals', '042', '42', 'number', true],
  ['equals', true, 'true', undefined, true],
  ['equals', true, 'yes', undefined, true],
  ['equals', false, 'true', undefined, false],
  ['equals', 'ja', true, 'boolean', true],
  ['equals', '2024-06-15T08:00:00Z', '2024-06-15T10:00:00+02:00', 'date', true],
  ['equals', '2024-06-15T08:00:00Z', '2024-06-15', 'date', true],
  ['equals', ['vip', 'hot'], 'VIP', undefined, true],
  ['equals', ['vip', 'hot'], 'cold', undefined, false],
  ['equals', undefined, '', undefined, true],
  ['equals', undefined, 'x', undefined, false],
  ['equals', null, null, undefined, true],
  ['not_equals', 'won', 'lost', undefined, true],
  ['not_equals', 'won', 'WON', undefined, false],
  ['not_equals', undefined, 'x', undefined, true],
  ['contains', 'Hello World', 'world', undefined, true],
  ['contains', 'Hello', 'bye', undefined, false],
  ['contains', 12345, '234', undefined, true],
  ['contains', ['a', 'b'], 'B', undefined, true],
  ['contains', ['a', 'b'], 'c', undefined, false],
  ['contains', undefined, 'x', undefined, false],
  ['not_contains', 'Hello', 'bye', undefined, true],
  ['not_contains', 'Hello', 'ell', undefined, false],
  ['not_contains', undefined, 'x', undefined, true],
  ['starts_with', 'Hello', 'he', undefined, true],
  ['starts_with', 'Hello', 'lo', undefined, false],
  ['starts_with', undefined, '', undefined, false],
  ['ends_with', 'ann@example.com', '@EXAMPLE.com', undefined, true],
  ['ends_with', 'ann@example.org', '.com', undefined, false],
  ['matches_regex', 'ann@example.com', '^[a-z]+@example\\.com$', undefined, true],
  ['matches_regex', 'ANN@example.com', '^[a-z]+@', undefined, false],
  ['matches_regex', 'ANN@example.com', '/^[a-z]+@/i', undefined, true],
  ['matches_regex', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!', '(a+)+$', undefined, false],
  ['matches_regex', 'abc', '(a)\\1', undefined, false],
  ['matches_regex', undefined, '.*', undefined, false],
  ['greater_than', 10, 5, undefined, true],
  ['greater_than', 5, 5, undefined, false],
  ['greater_than', '10', '9', undefined, true],
  ['greater_than', 'ten', 5, undefined, false],
  ['greater_than', undefined, 0, undefined, false],
  ['greater_than', '2024-06-16', '2024-06-15', 'date', true],
  ['less_than', 1, 2, undefined, true],
  ['less_than', 2, 2, undefined, false],
  ['less_than', '2024-06-14T23:00:00Z', '2024-06-15T00:00:00Z', 'date', true],
  ['greater_than_or_equal', 5, 5, undefined, true],
  ['greater_than_or_equal', 4, 5, undefined, false],
  ['less_than_or_equal', 5, 5, undefined, true],
  ['less_than_or_equal', 6, 5, undefined, false],
  ['between', 5, [1, 10], undefined, true],
  ['between', 10, [1, 10], undefined, true],
  ['between', 11, [1, 10], undefined, false],
  ['between', 5, '1,10', undefined, true],
  ['between', 5, '10, 1', undefined, true],
  ['between', 5, { min: 6, max: 9 }, undefined, false],
  ['between', 5, [1], undefined, false],
  ['between', '2024-06-10', ['2024-06-01', '2024-06-30'], 'date', true],
  ['between', '2024-07-10', ['2024-06-01', '2024-06-30'], 'date', false],
  ['is_empty', '', undefined, undefined, true],
  ['is_empty', '  ', undefined, undefined, true],
  ['is_empty', [], undefined, undefined, true],
  ['is_empty', {}, undefined, undefined, true],
  ['is_empty', undefined, undefined, undefined, true],
  ['is_empty', 0, undefined, undefined, false],
  ['is_empty', 'x', undefined, undefined, false],
  ['is_not_empty', 'x', undefined, undefined, true],
  ['is_not_empty', null, undefined, undefined, false],
  ['exists', '', undefined, undefined, true],
  ['exists', 0, undefined, undefined, true],
  ['exists', null, undefined, undefined, false],
  ['exists', undefined, undefined, undefined, false],
  ['not_exists', undefined, undefined, undefined, true],
  ['not_exists', false, undefined, undefined, false],
  ['is_true', true, undefined, undefined, true],
  ['is_true', 'yes', undefined, undefined, true],
  ['is_true', 1, undefined, undefined, true],
  ['is_true', 'maybe', undefined, undefined, false],
  ['is_true', undefined, undefined, undefined, false],
  ['is_false', false, undefined, undefined, true],
  ['is_false', 'nej', undefined, undefined, true],
  ['is_false', undefined, undefined, undefined, true],
  ['is_false', 'maybe', undefined, undefined, false],
  ['is_false', true, undefined, undefined, false],
  ['array_contains', ['vip', 'hot'], 'Hot', undefined, true],
  ['array_contains', ['vip', 'hot'], 'cold', undefined, false],
  ['array_contains', [1, 2, 3], '2', undefined, true],
  ['array_contains', ['a', 'b', 'c'], ['a', 'c'], undefined, true],
  ['array_contains', ['a', 'b'], ['a', 'z'], undefined, false],
  ['array_contains', 'a, b', 'b', undefined, true],
  ['array_contains', '["x","y"]', 'y', undefined, true],
  ['array_contains', undefined, 'a', undefined, false],
  ['array_length_equals', [1, 2], 2, undefined, true],
  ['array_length_equals', [1, 2], '3', undefined, false],
  ['array_length_equals', undefined, 0, undefined, true],
  ['array_length_greater', [1, 2], 1, undefined, true],
  ['array_length_greater', [1, 2], 2, undefined, false],
  ['array_length_greater', [1], 'x', undefined, false],
  ['date_before', '2024-06-14', '2024-06-15', undefined, true],
  ['date_before', '2024-06-15T21:00:00Z', '2024-06-15', undefined, false],
  ['date_before', '2024-06-15T08:00:00Z', '2024-06-15T09:00:00Z', undefined, true],
  ['date_before', 'not a date', '2024-06-15', undefined, false],
  ['date_after', '2024-06-16', '2024-06-15', undefined, true],
  ['date_after', '2024-06-15T21:59:00Z', '2024-06-15', undefined, false],
  ['date_after', '2024-06-15T22:00:00Z', '2024-06-15', undefined, true],
  ['date_equals', '2024-06-15T21:59:00Z', '2024-06-15', undefined, true],
  ['date_equals', '2024-06-15T22:00:00Z', '2024-06-15', undefined, false],
  ['date_equals', new Date('2024-06-15T12:00:00Z'), '2024-06-15T01:00:00+02:00', undefined, true],
  ['date_equals', Date.UTC(2024, 5, 15, 12), '2024-06-15', undefined, true],
  ['date_within_days', '2024-06-20', 7, undefined, true],
  ['date_within_days', '2024-06-15T21:00:00Z', 0, undefined, true],
  ['date_within_days', '2024-06-23', 7, undefined, false],
  ['date_within_days', '2024-06-14', 7, undefined, false],
  ['date_within_days', '2024-06-10', -7, undefined, true],
  ['date_within_days', '2024-06-20', -7, undefined, false],
  ['date_in_exactly_days', '2024-06-18', 3, undefined, true],
  ['date_in_exactly_days', '2024-06-18T22:30:00Z', 3, undefined, false],
  ['date_in_exactly_days', '2024-06-12', '-3', undefined, true],
  ['date_in_exactly_days', '2024-06-19', 3, undefined, false],
];

describe('evaluateCondition: every operator', () => {
  it('covers every operator of the spec with a positive and a negative case', () => {
    for (const op of CONDITION_OPERATORS) {
      expect(rows.some(([o, , , , r]) => o === op && r)).toBe(true);
      expect(rows.some(([o, , , , r]) => o === op && !r)).toBe(true);
    }
  });

  it.each(rows)('%s: %j vs %j (%s) → %s', (operator, actual, value, dataType, expected) => {
    const context = { lead: { x: actual } };
    expect(evaluateCondition({ field: 'lead.x', operator, value, dataType }, context, opts)).toBe(expected);
  });
});

describe('evaluateCondition: fields and values', () => {
  const context = {
    lead: { score: 80, email: 'a@b.dk', tags: ['vip'] },
    deal: { value: 500, threshold: 400 },
    webhookData: { min: '100', max: '900' },
    aiOutput: { qualified: 'yes' },
    ai_text: 'YES please',
  };

  it.each([
    [{ field: '{{deal.value}}', operator: 'greater_than', value: 100 }, true],
    [{ field: 'deal.value', operator: 'greater_than', value: '{{deal.threshold}}' }, true],
    [{ field: 'deal.value', operator: 'between', value: ['{{webhookData.min}}', '{{webhookData.max}}'] }, true],
    [{ field: 'aiOutput.qualified', operator: 'is_true' }, true],
    [{ field: 'ai_text', operator: 'starts_with', value: 'yes' }, true],
    [{ field: 'score', operator: 'exists' }, false],
    [{ field: 'lead.score|default:0', operator: 'greater_than', value: 50 }, true],
    [{ field: 'lead.missing|default:0', operator: 'equals', value: 0 }, true],
    [{ field: 'lead.tags', operator: 'array_length_equals', value: 1 }, true],
  ] as const)('%j → %s', (cond, expected) => {
    expect(evaluateCondition(cond, context, opts)).toBe(expected);
  });

  it('requires an explicit now for relative date operators', () => {
    expect(() =>
      evaluateCondition({ field: 'lead.x', operator: 'date_within_days', value: 3 }, { lead: { x: '2024-01-01' } }),
    ).toThrow(/options\.now/);
    expect(
      evaluateCondition(
        { field: 'lead.x', operator: 'date_before', value: '2025-01-01' },
        { lead: { x: '2024-01-01' } },
      ),
    ).toBe(true);
  });

  it('uses the given time zone for calendar days', () => {
    const c = { field: 'lead.x', operator: 'date_equals' as const, value: '2024-06-15' };
    const ctx2 = { lead: { x: '2024-06-15T23:30:00Z' } };
    expect(evaluateCondition(c, ctx2, { timezone: 'UTC' })).toBe(true);
    expect(evaluateCondition(c, ctx2, { timezone: 'Europe/Copenhagen' })).toBe(false);
  });
});

describe('evaluateConditions', () => {
  const context = { lead: { score: 80, status: 'new' } };
  const high = { field: 'lead.score', operator: 'greater_than' as const, value: 50 };
  const won = { id: 'c2', field: 'lead.status', operator: 'equals' as const, value: 'won' };

  it.each([
    ['and', [high], true],
    ['and', [high, won], false],
    ['or', [high, won], true],
    ['or', [won], false],
    ['and', [], true],
    ['or', [], false],
  ] as const)('%s of %j → %s', (logic, conditions, expected) => {
    expect(evaluateConditions(conditions, logic, context, opts)).toBe(expected);
  });

  it('explains each check for the step log', () => {
    expect(explainConditions([high, won], 'and', context, opts)).toEqual({
      result: false,
      checks: [
        { field: 'lead.score', operator: 'greater_than', actual: 80, expected: 50, passed: true },
        { id: 'c2', field: 'lead.status', operator: 'equals', actual: 'new', expected: 'won', passed: false },
      ],
    });
  });
});

describe('coercion helpers', () => {
  it.each([
    [true, true],
    ['TRUE', true],
    ['ja', true],
    [1, true],
    ['0', false],
    ['no', false],
    [0, false],
    [null, false],
    ['', false],
    ['x', null],
    [2, null],
    [{}, null],
  ])('toBoolean(%j) → %j', (v, expected) => expect(toBoolean(v)).toBe(expected));

  it.each([
    [[1], [1]],
    [undefined, []],
    ['', []],
    ['a, b,,c', ['a', 'b', 'c']],
    ['[1,2]', [1, 2]],
    ['[oops', ['[oops']],
    [5, [5]],
  ])('toArray(%j) → %j', (v, expected) => expect(toArray(v)).toEqual(expected));
});
