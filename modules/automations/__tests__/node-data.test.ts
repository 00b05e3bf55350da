import { aiBranchOf, aiSchemaOf, delayMinutesOf, slugify } from '../node-data.schemas';

describe('logic node helpers', () => {
  it.each([
    [{ delayMinutes: 90 }, 90],
    [{ amount: 2, unit: 'hours' }, 120],
    [{ amount: 1.5, unit: 'days' }, 2160],
    [{ amount: 1, unit: 'weeks' }, 10_080],
    [{ amount: 3, unit: 'minutes' }, 3],
    [{ amount: 3 }, null],
    [{ amount: '3', unit: 'days' }, null],
    [{ delayMinutes: 'soon' }, null],
    [{}, null],
  ])('delayMinutesOf(%j) → %j', (data, minutes) => expect(delayMinutesOf(data)).toBe(minutes));

  it.each([
    ['Open deals', 'open_deals'],
    ['  Æble & Ørred på Ås! ', 'aeble_oerred_pa_as'],
    ['Café résumé', 'cafe_resume'],
    ['123', '123'],
    ['!!!', ''],
  ])('slugify(%j) → %j', (label, slug) => expect(slugify(label)).toBe(slug));

  it.each([
    [{ type: 'object' }, { type: 'object' }],
    ['{"type":"object"}', { type: 'object' }],
    ['[1]', null],
    ['{bad', null],
    [42, null],
  ])('aiSchemaOf(%j) → %j', (schema, expected) => expect(aiSchemaOf(schema)).toEqual(expected));

  it.each([
    [{ reason: 'x', qualified: true, other: false }, 'true'],
    [{ qualified: false, other: true }, 'false'],
    [{ reason: 'no booleans' }, 'false'],
    ['Yes, definitely', 'true'],
    ['ja tak', 'true'],
    ['No.', 'false'],
    ['yesterday it was fine', 'false'],
    [true, 'true'],
    [null, 'false'],
  ])('aiBranchOf(%j) → %s', (output, handle) => expect(aiBranchOf(output)).toBe(handle));
});
