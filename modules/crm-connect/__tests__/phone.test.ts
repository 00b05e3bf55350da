import { matchesPhone, normalizePhone, phonesMatch } from '../phone';

describe('normalizePhone', () => {
  it.each([
    ['+45 12 34 56 78', { international: true, digits: '4512345678' }],
    ['0045 12-34-56-78', { international: true, digits: '4512345678' }],
    ['(555) 123.4567', { international: false, digits: '5551234567' }],
    ['  +1 (555) 123-4567 ', { international: true, digits: '15551234567' }],
    ['12345678', { international: false, digits: '12345678' }],
    ['1234', { international: false, digits: '1234' }],
    ['+'.concat('1'.repeat(20)), { international: true, digits: '1'.repeat(20) }],
  ])('%s → %j', (raw, expected) => {
    expect(normalizePhone(raw)).toEqual(expected);
  });

  it.each([
    ['', 'empty'],
    ['abc', 'letters'],
    ['123', 'three digits'],
    ['+45 1234 5678 ext 9', 'extension text'],
    ['1'.repeat(21), '21 digits'],
    ['++4512345678', 'double plus'],
    ['12/34', 'slash'],
    ['+', 'plus only'],
  ])('%j (%s) is not a phone number', (raw) => {
    expect(normalizePhone(raw)).toBeNull();
  });
});

describe('phonesMatch', () => {
  const n = (s: string) => normalizePhone(s)!;
  it.each([
    ['+45 12 34 56 78', '0045 12345678', true, 'same number, 00 = +'],
    ['+45 12 34 56 78', '12 34 56 78', true, 'national number without the country prefix'],
    ['+44 7700 900123', '07700 900123', true, 'trunk 0 instead of the country prefix'],
    ['+45 12 34 56 78', '+46 12 34 56 78', false, 'two international numbers with different country codes'],
    ['12345678', '+4512345679', false, 'last digit differs'],
    ['1234567', '91234567', false, 'fewer than 8 digits must be equal'],
    ['1234567', '1234567', true, 'short numbers equal'],
    ['5551234567', '(555) 123-4567', true, 'same digits in another format'],
    ['+1 555 123 4567', '1 555 123 4567', true, 'same digits, one without +'],
  ])('%s vs %s → %s (%s)', (a, b, expected) => {
    expect(phonesMatch(n(a), n(b))).toBe(expected);
    expect(phonesMatch(n(b), n(a))).toBe(expected);
  });

  it('matchesPhone ignores stored values that are not phone numbers', () => {
    expect(matchesPhone(n('+4512345678'), null)).toBe(false);
    expect(matchesPhone(n('+4512345678'), 'call reception')).toBe(false);
    expect(matchesPhone(n('+4512345678'), '12 34 56 78')).toBe(true);
  });
});
