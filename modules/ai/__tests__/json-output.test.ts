import { parseJsonOutput, toStrictSchema, topLevelProblems } from '../../../adapters/ai/json-output';

describe('toStrictSchema', () => {
  it('closes objects, requires every property and makes the optional ones nullable (nested too)', () => {
    const strict = toStrictSchema({
      type: 'object',
      properties: {
        name: { type: 'string' },
        tier: { type: 'string', enum: ['a', 'b'] },
        tags: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' } } } },
        any: { description: 'free' },
        already: { type: ['number', 'null'] },
      },
      required: ['name'],
    });
    expect(strict).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['name', 'tier', 'tags', 'any', 'already'],
      properties: {
        name: { type: 'string' },
        tier: { type: ['string', 'null'], enum: ['a', 'b', null] },
        tags: {
          type: ['array', 'null'],
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['label'],
            properties: { label: { type: ['string', 'null'] } },
          },
        },
        any: { anyOf: [{ description: 'free' }, { type: 'null' }] },
        already: { type: ['number', 'null'] },
      },
    });
  });

  it('keeps an explicit additionalProperties', () => {
    expect(
      toStrictSchema({
        type: 'object',
        properties: { a: { type: 'string' } },
        required: ['a'],
        additionalProperties: true,
      }).additionalProperties,
    ).toBe(true);
  });
});

describe('topLevelProblems', () => {
  const schema = {
    type: 'object',
    properties: {
      a: { type: 'string' },
      n: { type: 'number' },
      i: { type: 'integer' },
      o: { type: 'object' },
      l: { type: 'array' },
      x: {},
    },
    required: ['a', 'i'],
  };
  it.each([
    [{ a: 'x', i: 1 }, []],
    [{ a: 'x', i: 1, n: null, o: null }, []],
    [{ a: 'x', i: 1, n: 1.5, o: {}, l: [], x: 'anything', extra: true }, []],
    [{ i: 1 }, ['missing required field(s): a']],
    [{}, ['missing required field(s): a, i']],
    [{ a: 1, i: 1.5 }, ['field "a" must be of type string', 'field "i" must be of type integer']],
    [{ a: null, i: 1 }, ['field "a" must be of type string']],
    [{ a: 'x', i: 1, o: [], l: {} }, ['field "o" must be of type object', 'field "l" must be of type array']],
  ])('%j → %j', (value, problems) => {
    expect(topLevelProblems(value, schema)).toEqual(problems);
  });
});

describe('parseJsonOutput', () => {
  it('parses plain and fenced JSON', () => {
    expect(parseJsonOutput(' {"a":"x"} ', { required: ['a'] })).toEqual({ a: 'x' });
    expect(parseJsonOutput('```\n{"a":"x"}\n```', {})).toEqual({ a: 'x' });
  });
  it('quotes at most 200 characters of non-JSON output', () => {
    expect(() => parseJsonOutput('n'.repeat(500), {})).toThrow(`(got: "${'n'.repeat(200)}…")`);
  });
});
