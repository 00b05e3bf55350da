// Issue 27: the pure parts of the skip log and the condition explanation.
import { explainBranch, conditionDetails } from '../condition-explain.pure';
import { explainTriggerMismatch } from '../trigger-explain';
import { boundDetails, MAX_DETAILS_CHARS } from '../engine/skips';

describe('explainTriggerMismatch', () => {
  const lead = { type: 'lead_created', entityType: 'lead', payload: {} };
  it.each([
    [{ triggerType: 'record_created', config: { entityTypes: ['deal'] } }, lead, 'entity_type_mismatch'],
    [
      { triggerType: 'tag_added', config: { entityType: 'Company', tagId: 'vip' } },
      { type: 'tag_added', entityType: 'lead', payload: { entityType: 'Lead', tag: 'vip' } },
      'entity_type_mismatch',
    ],
    [
      { triggerType: 'tag_added', config: { entityType: 'Lead', tagId: 'vip' } },
      { type: 'tag_added', entityType: 'lead', payload: { entityType: 'Lead', tag: 'other' } },
      'conditions_false',
    ],
    [
      { triggerType: 'record_changed', config: { changeTypes: ['stage_changed'] } },
      { type: 'lead_updated', entityType: 'lead', payload: { changes: { title: {} } } },
      'conditions_false',
    ],
    [
      { triggerType: 'deal_stage_changed', config: { stageId: 'won' } },
      { type: 'deal_stage_changed', entityType: 'deal', payload: { toStageId: 'lost' } },
      'conditions_false',
    ],
  ])('%j on %j → %s', (trigger, event, reason) => {
    expect(explainTriggerMismatch(trigger, event).reason).toBe(reason);
  });
});

describe('boundDetails', () => {
  it('redacts secret-looking keys at any depth and bounds strings, arrays and depth', () => {
    const out = boundDetails({
      filters: { secret: 'k', apiKey: 'x', nested: { password: 'p', token: 't', ok: 1 } },
      long: 'x'.repeat(500),
      list: Array.from({ length: 50 }, (_, i) => i),
      deep: { a: { b: { c: { d: 1 } } } },
    });
    expect(JSON.stringify(out)).not.toMatch(/"k"|"x"|"p"|"t"/);
    expect(out.filters).toEqual({
      secret: '[redacted]',
      apiKey: '[redacted]',
      nested: { password: '[redacted]', token: '[redacted]', ok: 1 },
    });
    expect((out.long as string).length).toBe(201);
    expect(out.list).toHaveLength(20);
    expect(out.deep).toEqual({ a: { b: '{…}' } });
  });

  it(`replaces details longer than ${MAX_DETAILS_CHARS} characters by a note`, () => {
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 'v'.repeat(200)]));
    expect(JSON.stringify(wide).length).toBeGreaterThan(MAX_DETAILS_CHARS);
    expect(boundDetails(wide)).toEqual({ truncated: true, keys: Object.keys(wide) });
  });
});

describe('explainBranch', () => {
  const check = (field: string, passed: boolean, actual: unknown = 1) =>
    ({ field, operator: 'equals', expected: 1, actual, passed }) as const;
  it('names the branch and the deciding conditions, with or without values', () => {
    expect(explainBranch([check('a', true), check('b', false, 2)], 'and', false)).toBe(
      'branch false: not met (and): b equals 1 (value 2)',
    );
    expect(explainBranch([check('a', true)], 'and', true, { values: false })).toBe(
      'branch true: every condition met (and): a equals …',
    );
    expect(explainBranch([{ ...check('a', false), actual: undefined }], 'or', false)).toBe(
      'branch false: no condition met (or): a equals 1 (value missing)',
    );
    expect(explainBranch([], 'and', true)).toBe('branch true: no conditions (and of none is met)');
  });

  it('keeps the Web UI details bounded to the last 20 condition nodes', () => {
    const text = conditionDetails(Array.from({ length: 25 }, (_, i) => `n${i} → branch true`));
    expect(text.split('\n')).toHaveLength(22);
    expect(text).toContain('(5 earlier condition nodes not shown)');
  });
});
