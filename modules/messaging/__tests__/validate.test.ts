import { MAX_EMAIL_BODY_BYTES, validateEmail, type SendEmailInput } from '../../email/email.service';
import { validateSms, type SendSmsInput } from '../sms.service';

const email = (over: Partial<SendEmailInput> = {}): SendEmailInput => ({
  to: ['ann@example.com'],
  subject: 'Hi',
  html: '<p>Hi</p>',
  links: {},
  ...over,
});
const failure = (fn: () => unknown): { code?: string; message?: string } => {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected a failure');
};
const addresses = (n: number) => Array.from({ length: n }, (_, i) => `r${i}@example.com`);

describe('validateEmail', () => {
  it('normalises: trims the subject, dedupes recipients, applies the default sender and source', () => {
    const v = validateEmail(
      email({ to: ['Ann <ann@example.com>', 'ANN@example.com'], subject: '  Hi  ' }),
      'CRM <crm@example.com>',
    );
    expect(v).toMatchObject({
      to: [{ address: 'ann@example.com', name: 'Ann' }],
      subject: 'Hi',
      from: { address: 'crm@example.com', name: 'CRM' },
      source: 'api',
      idempotencyKey: null,
    });
  });

  it.each([
    ['max subject (998)', { subject: 's'.repeat(998) }],
    ['max body bytes, html only', { html: 'h'.repeat(MAX_EMAIL_BODY_BYTES) }],
    ['max body bytes, html + text', { html: 'h'.repeat(MAX_EMAIL_BODY_BYTES - 10), text: 't'.repeat(10) }],
    ['text only', { html: undefined, text: 'plain' }],
    ['50 recipients', { to: addresses(30), cc: addresses(50).slice(30, 40), bcc: addresses(50).slice(40) }],
    ['200-character idempotency key', { idempotencyKey: 'k'.repeat(200) }],
    ['source automation', { source: 'automation' as const }],
  ])('accepts %s', (_name, over) => {
    expect(() => validateEmail(email(over), 'crm@example.com')).not.toThrow();
  });

  it.each([
    ['no recipient', { to: [] }, 'to: at least one recipient'],
    ['to not an array', { to: 'ann@example.com' as unknown as string[] }, 'to: must be an array'],
    ['bad recipient', { to: ['ann@example.com', 'nope'] }, 'to.1: "nope" is not an e-mail address'],
    ['bad cc', { cc: ['x@'] }, 'cc.0:'],
    ['bad bcc', { bcc: [42 as unknown as string] }, 'bcc.0: must be a string'],
    ['51 recipients', { to: addresses(40), cc: addresses(51).slice(40) }, 'at most 50 recipients'],
    ['missing subject', { subject: '  ' }, 'subject: is required'],
    ['subject 999', { subject: 's'.repeat(999) }, 'subject: must be at most 998'],
    ['subject with line break', { subject: 'Hi\r\nBcc: x@evil.example' }, 'subject: must not contain line breaks'],
    ['no body', { html: '', text: undefined }, 'html or text is required'],
    ['blank body', { html: '   ', text: ' ' }, 'html or text is required'],
    [
      'body one byte too large',
      { html: 'h'.repeat(MAX_EMAIL_BODY_BYTES - 10), text: 't'.repeat(11) },
      `at most ${MAX_EMAIL_BODY_BYTES} bytes`,
    ],
    ['multi-byte body too large', { html: 'æ'.repeat(MAX_EMAIL_BODY_BYTES / 2 + 1) }, 'bytes'],
    ['bad from', { from: 'not-an-address' }, 'from: is not an e-mail address'],
    ['bad replyTo', { replyTo: 'x\ny@example.com' }, 'replyTo: must not contain line breaks'],
    ['idempotency key 201', { idempotencyKey: 'k'.repeat(201) }, 'idempotencyKey: must be 1-200'],
    ['idempotency key with space', { idempotencyKey: 'a b' }, 'idempotencyKey'],
    ['empty idempotency key', { idempotencyKey: '' }, 'idempotencyKey'],
    ['unknown source', { source: 'cron' as never }, 'source: must be one of automation, sequence, api, support'],
  ])('refuses %s', (_name, over, message) => {
    const err = failure(() => validateEmail(email(over), 'crm@example.com'));
    expect(err.code).toBe('validation');
    expect(err.message).toContain(message);
  });

  it('without MAIL_FROM and without from: not_configured naming MAIL_FROM', () => {
    const err = failure(() => validateEmail(email(), undefined));
    expect(err).toMatchObject({ code: 'not_configured' });
    expect(err.message).toContain('MAIL_FROM');
    expect(validateEmail(email({ from: 'me@example.com' }), undefined).from).toEqual({ address: 'me@example.com' });
  });
});

describe('validateSms', () => {
  const sms = (over: Partial<SendSmsInput> = {}): SendSmsInput => ({
    to: '+45 12 34 56 78',
    message: 'Hej',
    links: {},
    ...over,
  });

  it('normalises numbers and uses the default sender', () => {
    expect(validateSms(sms(), { from: 'Acme' })).toEqual({
      to: '+4512345678',
      from: 'Acme',
      message: 'Hej',
      source: 'api',
      idempotencyKey: null,
    });
    expect(validateSms(sms({ to: '12345678', from: '87 65 43 21' }), { countryCode: '45' })).toMatchObject({
      to: '+4512345678',
      from: '+4587654321',
    });
  });

  it.each([
    ['1600 characters', { message: 'm'.repeat(1600) }],
    ['1600 emoji (code points, not UTF-16 units)', { message: '😀'.repeat(1600) }],
    ['11-character sender id', { from: 'ABCDEFGHIJK' }],
  ])('accepts %s', (_name, over) => {
    expect(() => validateSms(sms(over), { from: 'Acme' })).not.toThrow();
  });

  it.each([
    ['1601 characters', { message: 'm'.repeat(1601) }, 'message: must be at most 1600 characters'],
    ['empty message', { message: ' ' }, 'message: is required'],
    ['bad number', { to: '12ab' }, 'to: is not a phone number'],
    ['national number without default country', { to: '12345678' }, 'to: must be an international number'],
    [
      '12-character sender id',
      { from: 'ABCDEFGHIJKL' },
      'from: an alphanumeric sender id must be at most 11 characters',
    ],
    ['sender id with symbols', { from: 'Acme!' }, 'from: an alphanumeric sender id may only contain'],
    ['bad idempotency key', { idempotencyKey: 'k'.repeat(201) }, 'idempotencyKey'],
  ])('refuses %s', (_name, over, message) => {
    const err = failure(() => validateSms(sms(over), { from: 'Acme' }));
    expect(err.code).toBe('validation');
    expect(err.message).toContain(message);
  });

  it('without SMS_DEFAULT_FROM and without from: not_configured naming SMS_DEFAULT_FROM', () => {
    const err = failure(() => validateSms(sms(), {}));
    expect(err).toMatchObject({ code: 'not_configured' });
    expect(err.message).toContain('SMS_DEFAULT_FROM');
  });
});
