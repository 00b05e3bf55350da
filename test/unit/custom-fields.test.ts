import { mergeNameValues, mergeObject, toNameValueArray } from '../../platform/shared/custom-fields';
import { diffRecords } from '../../platform/shared/preview';
import { isId, newId } from '../../platform/ids';

describe('custom fields', () => {
  it('converts an object map on create and drops null values and duplicate names', () => {
    expect(toNameValueArray({ a: 1, b: null })).toEqual([{ name: 'a', value: 1 }]);
    expect(
      toNameValueArray([
        { name: 'a', value: 1 },
        { name: 'a', value: 2 },
      ]),
    ).toEqual([{ name: 'a', value: 1 }]);
    expect(toNameValueArray(undefined)).toEqual([]);
  });
  it('merges partially: given keys change, null removes, others stay, order kept', () => {
    const current = [
      { name: 'a', value: 1 },
      { name: 'b', value: 2 },
    ];
    expect(mergeNameValues(current, { b: 3, c: 4, a: null })).toEqual([
      { name: 'b', value: 3 },
      { name: 'c', value: 4 },
    ]);
    expect(current).toEqual([
      { name: 'a', value: 1 },
      { name: 'b', value: 2 },
    ]);
    expect(mergeObject({ a: 1, b: 2 }, { b: null, c: 3 })).toEqual({ a: 1, c: 3 });
  });
});

describe('preview diff', () => {
  it('lists changed fields with from/to, ignoring updatedAt', () => {
    expect(diffRecords({ a: 1, b: [1], updatedAt: 'x' }, { a: 2, b: [1], updatedAt: 'y', c: 'new' })).toEqual({
      a: { from: 1, to: 2 },
      c: { from: null, to: 'new' },
    });
    expect(diffRecords(null, { a: 1 })).toEqual({ a: { from: null, to: 1 } });
  });
});

describe('ids', () => {
  it('are 24 hex characters, unique and time-ordered', () => {
    const ids = Array.from({ length: 1000 }, () => newId());
    expect(new Set(ids).size).toBe(1000);
    expect(ids.every(isId)).toBe(true);
    expect(newId(new Date('2020-01-01')) < newId(new Date('2030-01-01'))).toBe(true);
    expect(isId('ABCDEF0123456789abcdef01')).toBe(false);
    expect(isId(undefined)).toBe(false);
  });
});
