import { evaluateFormula, FormulaError, formulaReferences, parseFormula } from '../formula';

const calc = (src: string, values: Record<string, unknown> = {}) => evaluateFormula(parseFormula(src), values);

describe('formula evaluator', () => {
  it.each([
    ['1 + 2', {}, 3],
    ['2 + 3 * 4', {}, 14],
    ['(2 + 3) * 4', {}, 20],
    ['10 / 4', {}, 2.5],
    ['10 - 2 - 3', {}, 5],
    ['100 / 10 / 2', {}, 5],
    ['-3 + 5', {}, 2],
    ['-(2 + 3)', {}, -5],
    ['--4', {}, 4],
    ['+4', {}, 4],
    ['.5 * 4', {}, 2],
    ['1e3 + 1', {}, 1001],
    ['0.1 + 0.2', {}, 0.3],
    ['price * qty', { price: 9.5, qty: 4 }, 38],
    ['(price - cost) / price * 100', { price: 200, cost: 150 }, 25],
    ['price * qty', { price: 9.5 }, null],
    ['price * qty', { price: 9.5, qty: null }, null],
    ['price * qty', { price: '9.5', qty: 2 }, null],
    ['a / b', { a: 1, b: 0 }, null],
    ['0 * -1', {}, 0],
    ['constructor + 1', {}, null],
    ['toString + hasOwnProperty', {}, null],
  ])('%s with %j = %s', (src, values, expected) => {
    expect(calc(src, values)).toBe(expected);
  });

  it.each([
    [''],
    ['   '],
    ['1 +'],
    ['(1 + 2'],
    ['1 + 2)'],
    ['2 ** 3'],
    ['price; process.exit()'],
    ['a.b'],
    ['Math.max(1, 2)'],
    ['1 2'],
    ['"text"'],
    ['x = 1'],
    ['[1]'],
    ['1 % 2'],
    ['_x'],
    ['__proto__'],
    ['-'.repeat(60) + '1'],
    ['('.repeat(60) + '1' + ')'.repeat(60)],
    ['1+'.repeat(300) + '1'],
  ])('refuses %j', (src) => {
    expect(() => parseFormula(src)).toThrow(FormulaError);
  });

  it('lists the field slugs an expression reads, once each', () => {
    expect(formulaReferences(parseFormula('(price - cost) * qty / price'))).toEqual(['price', 'cost', 'qty']);
    expect(formulaReferences(parseFormula('1 + 2'))).toEqual([]);
  });
});
