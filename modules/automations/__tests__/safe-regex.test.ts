import { MAX_PATTERN_LENGTH, MAX_REGEX_INPUT, compileSafeRegex, parseRegexValue } from '../safe-regex.pure';

const test = (pattern: string, input: string, flags = '') => {
  const r = compileSafeRegex(pattern, flags);
  if (!r.ok) throw new Error(r.error);
  return r.regex.test(input);
};

describe('compileSafeRegex: agrees with RegExp on the supported subset', () => {
  const cases: [string, string, string][] = [
    ['^a+$', '', 'aaa'],
    ['^a+$', '', 'aab'],
    ['colou?r', '', 'my color'],
    ['colou?r', '', 'my colr'],
    ['^\\d{4}-\\d{2}-\\d{2}$', '', '2024-05-01'],
    ['^\\d{4}-\\d{2}-\\d{2}$', '', '2024-5-01'],
    ['[A-Z]{2}\\d', 'i', 'dk1'],
    ['[A-Z]{2}\\d', '', 'dk1'],
    ['\\bfoo\\b', '', 'a foo b'],
    ['\\bfoo\\b', '', 'afoob'],
    ['\\Boo', '', 'foo'],
    ['^(?:ja|yes)$', 'i', 'YES'],
    ['^(?:ja|yes)$', '', 'nej'],
    ['a.c', '', 'a\nc'],
    ['a.c', 's', 'a\nc'],
    ['^b', 'm', 'a\nb'],
    ['^b', '', 'a\nb'],
    ['a$', 'm', 'a\nb'],
    ['[^0-9]', '', '123'],
    ['[^0-9]', '', '12a'],
    ['x{2,3}', '', 'axxb'],
    ['^x{2,3}$', '', 'xxxx'],
    ['^x{2,}$', '', 'xxxxx'],
    ['a{', '', 'a{'],
    ['(?<n>ab)+', '', 'abab'],
    ['', '', 'x'],
    ['a|', '', 'b'],
    ['[\\d.]+', '', '1.5'],
    ['\\.com$', '', 'x.com'],
    ['\\.com$', '', 'xcom'],
    ['[a-c-]', '', '-'],
    ['\\x41\\u0042', '', 'AB'],
    ['\\t', '', 'a\tb'],
    ['[\\s]', '', 'ab'],
    ['\\S+@\\S+', '', 'mail a@b.dk'],
    ['\\W', '', 'abc_1'],
    ['\\D', '', '123'],
    ['^(a|b)*c$', '', 'ababc'],
    ['^(a|b)*c$', '', 'abab'],
    ['.+?x', '', 'aax'],
    ['[^a-z]', 'i', 'A'],
    ['[^a-z]', 'i', 'A1'],
    ['^[^A-Z]+$', 'i', 'abc'],
    ['K', 'i', 'k'],
    ['[A-Z]', 'i', 'q'],
    ['^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$', 'i', 'Ann.B@Example.DK'],
    ['^\\+45 ?\\d{8}$', '', '+45 12345678'],
    ['^\\+45 ?\\d{8}$', '', '+46 12345678'],
  ];
  it.each(cases)('/%s/%s on %j', (pattern, flags, input) => {
    expect(test(pattern, input, flags)).toBe(new RegExp(pattern, flags).test(input));
  });
});

describe('compileSafeRegex: linear time on catastrophic patterns', () => {
  it.each([['(a+)+$'], ['^(a|a)*$'], ['(a*)*b'], ['^(\\w+\\s?)*$'], ['^(.*a){12}$']])(
    '%s on a long non-matching input',
    (pattern) => {
      const started = Date.now();
      expect(test(pattern, 'a'.repeat(5000) + '!')).toBe(false);
      expect(Date.now() - started).toBeLessThan(5000);
    },
  );
});

describe('compileSafeRegex: refusals', () => {
  it.each([
    ['(a)\\1', 'backreferences are not supported'],
    ['\\k<n>', 'backreferences are not supported'],
    ['(?=a)', 'lookahead and lookbehind are not supported'],
    ['(?<!a)b', 'lookahead and lookbehind are not supported'],
    ['a**', 'nothing to repeat'],
    ['*a', 'nothing to repeat'],
    ['^*', 'nothing to repeat'],
    ['(a', 'unterminated group'],
    ['a)', 'unmatched ")"'],
    ['[a', 'unterminated character class'],
    ['[z-a]', 'character class range out of order'],
    ['a{3,1}', 'quantifier range out of order'],
    ['\\q', 'unsupported escape \\q'],
    ['a\\', 'pattern ends with a backslash'],
    ['(\\w{100}){100}', 'pattern too complex'],
    ['x'.repeat(MAX_PATTERN_LENGTH + 1), `pattern must be at most ${MAX_PATTERN_LENGTH} characters`],
  ])('%s', (pattern, error) => {
    const r = compileSafeRegex(pattern);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toContain(error);
  });

  it('refuses unknown flags and ignores g', () => {
    expect(compileSafeRegex('a', 'y')).toEqual({
      ok: false,
      error: 'unsupported regex flag(s) y (i, m and s are supported)',
    });
    expect(test('A', 'a', 'gi')).toBe(true);
  });

  it('does not match inputs over the size limit', () => {
    expect(test('a', 'a'.repeat(MAX_REGEX_INPUT))).toBe(true);
    expect(test('a', 'a'.repeat(MAX_REGEX_INPUT + 1))).toBe(false);
  });

  it.each([
    ['/abc/i', { source: 'abc', flags: 'i' }],
    ['/a\\/b/', { source: 'a\\/b', flags: '' }],
    ['abc', { source: 'abc', flags: '' }],
    ['/abc', { source: '/abc', flags: '' }],
  ])('parseRegexValue(%j)', (value, expected) => expect(parseRegexValue(value)).toEqual(expected));
});
