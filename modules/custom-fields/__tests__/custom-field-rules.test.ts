import { CUSTOM_FIELD_KEY_RE, definitionProblem } from '../definition-rules';
import { filterCondition, filterValueProblem, SEARCH_OPERATORS, type SearchFilter } from '../search-conditions';

describe('custom field definition rules', () => {
  it.each([
    ['tier', true],
    ['contractTier2', true],
    ['a_b', true],
    [`a${'b'.repeat(63)}`, true],
    ['Tier', false],
    ['1tier', false],
    ['_tier', false],
    ['a-b', false],
    ['a b', false],
    ['', false],
    [`a${'b'.repeat(64)}`, false],
    ['tæt', false],
  ])('key %j valid: %s', (key, valid) => {
    expect(CUSTOM_FIELD_KEY_RE.test(key)).toBe(valid);
  });

  it('select types need unique options; other types take none', () => {
    const o = (value: string) => ({ value, label: value });
    expect(definitionProblem({ type: 'select', options: [o('a'), o('b')] })).toBeNull();
    expect(definitionProblem({ type: 'select', options: [] })).toMatch(/at least one option/);
    expect(definitionProblem({ type: 'multi_select', options: [o('a'), o('a')] })).toMatch(
      /duplicate option value "a"/,
    );
    expect(definitionProblem({ type: 'number', options: [] })).toBeNull();
    expect(definitionProblem({ type: 'text', options: [o('a')] })).toMatch(/only select and multi_select/);
  });
});

describe('custom field search conditions', () => {
  const filters: SearchFilter[] = [
    { key: 'k', operator: 'equals', value: 'v' },
    { key: 'k', operator: 'not_equals', value: 5 },
    { key: 'k', operator: 'contains', value: 'v' },
    { key: 'k', operator: 'greater_than', value: 3 },
    { key: 'k', operator: 'less_than', value: '2026-01-01' },
    { key: 'k', operator: 'exists' },
    { key: 'k', operator: 'not_exists' },
    { key: 'k', operator: 'in', value: ['a', 1, true] },
  ];

  it('covers every operator', () => {
    expect(new Set(filters.map((f) => f.operator))).toEqual(new Set(SEARCH_OPERATORS));
  });

  it.each(
    filters.flatMap(
      (f) =>
        [
          ['map', f],
          ['pairs', f],
        ] as const,
    ),
  )('%s/%o: one bound parameter per placeholder, values never inlined', (storage, filter) => {
    const { sql, params } = filterCondition(storage, 'e.custom_fields', { ...filter, key: "k'; drop table x; --" });
    expect(sql.match(/\?/g)?.length ?? 0).toBe(params.length);
    expect(sql).not.toContain('drop table');
    expect(params.some((p) => String(p).includes("k'; drop table x; --"))).toBe(true);
  });

  it('equals probes by containment in the storage form', () => {
    expect(filterCondition('map', 'c', { key: 'k', operator: 'equals', value: 1 }).params).toEqual(['{"k":1}']);
    expect(filterCondition('pairs', 'c', { key: 'k', operator: 'equals', value: 'x' }).params).toEqual([
      '[{"name":"k","value":"x"}]',
    ]);
  });

  it.each([
    ['equals', 'a', true],
    ['equals', 1.5, true],
    ['equals', false, true],
    ['equals', undefined, false],
    ['equals', ['a'], false],
    ['not_equals', null, false],
    ['contains', 'x', true],
    ['contains', '', false],
    ['contains', 3, false],
    ['greater_than', 10, true],
    ['greater_than', '2026-05-01T10:00:00Z', true],
    ['greater_than', '2026-13-45', false],
    ['less_than', 'soon', false],
    ['exists', undefined, true],
    ['not_exists', 'ignored', true],
    ['in', ['a'], true],
    ['in', [], false],
    ['in', 'a', false],
    ['in', [{}], false],
    ['in', Array.from({ length: 101 }, () => 1), false],
  ] as const)('%s with %j valid: %s', (operator, value, valid) => {
    expect(filterValueProblem({ operator, value }) === null).toBe(valid);
  });
});
