import { fillPlaceholders, placeholdersOf } from '../sms-placeholders';
import { counterpartyOf } from '../sms-phone';

describe('SMS placeholders', () => {
  it.each([
    ['Hi {{name}}', ['name']],
    ['Hi {{ name }}, {{name}} again', ['name']],
    ['{{contact.firstName}} {{a_b-c}}', ['contact.firstName', 'a_b-c']],
    ['no placeholders', []],
    ['{{}} {{ two words }} {single}', []],
  ])('placeholdersOf(%j) = %j', (text, names) => {
    expect(placeholdersOf(text)).toEqual(names);
  });

  it.each([
    ['Hi {{ name }}, code {{code}}', { name: 'Ann', code: 42 }, { text: 'Hi Ann, code 42' }],
    ['Flag {{on}}', { on: false }, { text: 'Flag false' }],
    ['Hi {{name}}', {}, { missing: ['name'] }],
    ['Hi {{name}} {{x}}', { name: null }, { missing: ['name', 'x'] }],
    ['{{a}}', { a: '{{b}}', b: 'no re-expansion' }, { text: '{{b}}' }],
  ])('fillPlaceholders(%j, %j)', (text, values, expected) => {
    expect(fillPlaceholders(text, values as Record<string, string>)).toEqual(expected);
  });
});

describe('SMS counterparty (crm-connect phone rule)', () => {
  it.each([
    ['+45 12 34 56 78', '+4512345678', '12345678'],
    ['0045-12-34-56-78', '+4512345678', '12345678'],
    ['(12) 34.56.78', '12345678', '12345678'],
    ['1234', '1234', '1234'],
  ])('%j → %j (tail %j)', (raw, phoneNumber, tail) => {
    expect(counterpartyOf(raw)).toMatchObject({ phoneNumber, phoneTail: tail });
  });

  it.each(['', 'abc', '+', '123', '+45 12 34 56 78 90 12 34 56 78 9'])('%j is not a number', (raw) => {
    expect(counterpartyOf(raw)).toBeNull();
  });
});
