import { emailProblem, normalizePhoneNumber, normalizeSmsSender, parseMailbox } from '../addresses';
import { htmlToText } from '../../../platform/shared/html-text';

describe('e-mail addresses', () => {
  it.each([
    'ann@example.com',
    'a.b+tag@sub.example.co.uk',
    "o'brien@example.ie",
    'x@xn--bcher-kva.example',
    'jens@æble.dk',
    `${'a'.repeat(64)}@example.com`,
    `a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(60)}`,
  ])('accepts %s', (address) => {
    expect(emailProblem(address)).toBeNull();
  });

  it.each([
    ['', 'not an e-mail'],
    ['ann', 'not an e-mail'],
    ['ann@', 'not an e-mail'],
    ['@example.com', 'not an e-mail'],
    ['ann@localhost', 'not an e-mail'],
    ['ann@@example.com', 'not an e-mail'],
    ['.ann@example.com', 'not an e-mail'],
    ['an..n@example.com', 'not an e-mail'],
    ['ann@-example.com', 'not an e-mail'],
    ['ann@example.c', 'not an e-mail'],
    ['"ann"@example.com', 'not an e-mail'],
    ['ann smith@example.com', 'not an e-mail'],
    ['ann@exa_mple.com', 'not an e-mail'],
    [`${'a'.repeat(65)}@example.com`, 'local part must be at most 64'],
    [`a@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(61)}`, 'at most 254'],
  ])('refuses %j (%s)', (address, why) => {
    expect(emailProblem(address)).toContain(why);
  });

  it.each([
    ['ann@example.com', { address: 'ann@example.com' }],
    ['  Ann Example <ann@example.com> ', { address: 'ann@example.com', name: 'Ann Example' }],
    ['"Example, Ann" <ann@example.com>', { address: 'ann@example.com', name: 'Example, Ann' }],
    ['<ann@example.com>', { address: 'ann@example.com' }],
  ])('parses %j', (raw, mailbox) => {
    expect(parseMailbox(raw)).toEqual({ mailbox });
  });

  it.each([
    ['Ann\r\nBcc: x@evil.example <ann@example.com>', 'line breaks'],
    ['ann@example.com\n', 'line breaks'],
    ['Ann <ann@example.com', 'not an e-mail'],
    ['A<n> <ann@example.com>', 'not an e-mail'],
    [`${'n'.repeat(201)} <ann@example.com>`, 'display name must be at most 200'],
  ])('refuses mailbox %j', (raw, why) => {
    const parsed = parseMailbox(raw);
    expect('error' in parsed && parsed.error).toContain(why);
  });

  it('accepts a display name of exactly 200 characters', () => {
    expect(parseMailbox(`${'n'.repeat(200)} <ann@example.com>`)).toEqual({
      mailbox: { address: 'ann@example.com', name: 'n'.repeat(200) },
    });
  });
});

describe('phone numbers (E.164)', () => {
  it.each([
    ['+45 12 34 56 78', undefined, '+4512345678'],
    ['0045-12-34-56-78', undefined, '+4512345678'],
    ['+1 (415) 555-0100', undefined, '+14155550100'],
    ['+44 20.7946.0958', undefined, '+442079460958'],
    ['12 34 56 78', '45', '+4512345678'],
    ['020 7946 0958', '44', '+442079460958'],
    ['+1234567', undefined, '+1234567'],
    ['+123456789012345', undefined, '+123456789012345'],
  ])('%j (default country %s) → %s', (raw, cc, phone) => {
    expect(normalizePhoneNumber(raw, cc)).toEqual({ phone });
  });

  it.each([
    ['12345678', undefined, 'international number'],
    ['+45 1234 abc', undefined, 'not a phone number'],
    ['', undefined, 'not a phone number'],
    ['+123456', undefined, 'E.164'],
    ['+1234567890123456', undefined, 'E.164'],
    ['+0123456789', undefined, 'E.164'],
    ['++4512345678', undefined, 'not a phone number'],
  ])('refuses %j', (raw, cc, why) => {
    const r = normalizePhoneNumber(raw, cc);
    expect('error' in r && r.error).toContain(why);
  });
});

describe('SMS sender', () => {
  it.each([
    ['Acme', 'Acme'],
    ['ACME Shop 1', 'ACME Shop 1'],
    ['A'.repeat(11), 'A'.repeat(11)],
    ['B&B-Hotel', 'B&B-Hotel'],
    ['+45 87 65 43 21', '+4587654321'],
    ['0045 87654321', '+4587654321'],
  ])('accepts %j', (raw, from) => {
    expect(normalizeSmsSender(raw)).toEqual({ from });
  });

  it.each([
    ['A'.repeat(12), 'at most 11'],
    ['Acme Shop Ltd', 'at most 11'],
    ['Æble', 'may only contain'],
    ['Acme!', 'may only contain'],
    ['87654321', 'international number'],
  ])('refuses %j', (raw, why) => {
    const r = normalizeSmsSender(raw);
    expect('error' in r && r.error).toContain(why);
  });
});

describe('htmlToText (timeline description)', () => {
  it.each([
    ['<p>Hello <b>Ann</b></p><p>Bye</p>', 'Hello Ann\nBye'],
    ['Line<br>two<br/>three', 'Line\ntwo\nthree'],
    ['<style>p{color:red}</style><script>alert(1)</script>Text', 'Text'],
    ['Fish &amp; chips &lt;3 &#229;&#x E6; &nbsp;x', 'Fish & chips <3 å&#x E6; x'],
    ['<!-- hidden -->Shown', 'Shown'],
  ])('%j → %j', (html, text) => {
    expect(htmlToText(html)).toBe(text);
  });
});
