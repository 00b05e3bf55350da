import { loadConfig } from '../../../app/config';
import { createMessagingDeps } from '../../email/messaging-deps';
import { smsSettings, smtpSettings } from '../settings';

const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x' };

describe('mail settings from the environment', () => {
  it.each([
    [
      'SMTP_URL with credentials',
      { SMTP_URL: 'smtp://us%40er:p%3Ass@mail.example.com:2525', MAIL_FROM: 'CRM <crm@example.com>' },
      {
        host: 'mail.example.com',
        port: 2525,
        secure: false,
        user: 'us@er',
        password: 'p:ss',
        from: { address: 'crm@example.com', name: 'CRM' },
      },
    ],
    [
      'smtps URL defaults to 465 and TLS',
      { SMTP_URL: 'smtps://u:p@mail.example.com', MAIL_FROM: 'crm@example.com' },
      {
        host: 'mail.example.com',
        port: 465,
        secure: true,
        user: 'u',
        password: 'p',
        from: { address: 'crm@example.com' },
      },
    ],
    [
      'host settings default to 587 with STARTTLS',
      { SMTP_HOST: 'relay.internal', SMTP_USER: 'u', SMTP_PASSWORD: 'p', MAIL_FROM: 'crm@example.com' },
      { host: 'relay.internal', port: 587, secure: false, user: 'u', password: 'p' },
    ],
    [
      'port 465 implies TLS',
      { SMTP_HOST: 'relay.internal', SMTP_PORT: '465', MAIL_FROM: 'crm@example.com' },
      { port: 465, secure: true },
    ],
    [
      'SMTP_SECURE overrides',
      { SMTP_HOST: 'relay.internal', SMTP_PORT: '2465', SMTP_SECURE: 'true', MAIL_FROM: 'crm@example.com' },
      { port: 2465, secure: true },
    ],
    [
      'relay without credentials',
      { SMTP_HOST: 'relay.internal', SMTP_PORT: '25', MAIL_FROM: 'crm@example.com' },
      { port: 25, secure: false },
    ],
  ])('%s', (_name, env, expected) => {
    const checked = smtpSettings(loadConfig({ ...base, ...env }).mail);
    expect(checked).toEqual({ settings: expect.objectContaining(expected) });
  });

  it.each([
    [
      'nothing set',
      {},
      'e-mail is not configured: set SMTP_URL (or SMTP_HOST/SMTP_PORT/SMTP_USER/SMTP_PASSWORD) and MAIL_FROM',
    ],
    ['no MAIL_FROM', { SMTP_HOST: 'relay.internal' }, 'MAIL_FROM is missing'],
    ['bad MAIL_FROM', { SMTP_HOST: 'relay.internal', MAIL_FROM: 'crm' }, 'MAIL_FROM is not an e-mail address'],
    [
      'wrong scheme',
      { SMTP_URL: 'http://mail.example.com', MAIL_FROM: 'crm@example.com' },
      'SMTP_URL must start with smtp:// or smtps://',
    ],
    ['not a URL', { SMTP_URL: 'mail.example.com', MAIL_FROM: 'crm@example.com' }, 'SMTP_URL is not a URL'],
    [
      'user without password',
      { SMTP_HOST: 'relay.internal', SMTP_USER: 'u', MAIL_FROM: 'crm@example.com' },
      'user and password must be set together',
    ],
    [
      'port out of range',
      { SMTP_HOST: 'relay.internal', SMTP_PORT: '70000', MAIL_FROM: 'crm@example.com' },
      'out of range',
    ],
  ])('%s: a problem naming what to set', (_name, env, problem) => {
    const checked = smtpSettings(loadConfig({ ...base, ...env }).mail);
    expect('problem' in checked && checked.problem).toContain(problem);
  });

  it.each([
    ['SMTP_SECURE', 'maybe'],
    ['SMTP_PORT', 'abc'],
    ['AI_TIMEOUT_MS', '-1'],
  ])('refuses malformed %s=%s at startup', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
  });
});

describe('SMS settings from the environment', () => {
  it('reads the gateway, token, default sender and country code', () => {
    const checked = smsSettings(
      loadConfig({
        ...base,
        SMS_GATEWAY_URL: 'https://sms.example.com/send',
        SMS_GATEWAY_TOKEN: 't',
        SMS_DEFAULT_FROM: '87 65 43 21',
        SMS_DEFAULT_COUNTRY_CODE: '+45',
      }).sms,
    );
    expect(checked).toEqual({
      settings: {
        url: 'https://sms.example.com/send',
        token: 't',
        defaultFrom: '+4587654321',
        defaultCountryCode: '45',
      },
    });
  });

  it.each([
    ['nothing set', {}, 'SMS is not configured: set SMS_GATEWAY_URL and SMS_GATEWAY_TOKEN'],
    ['no token', { SMS_GATEWAY_URL: 'https://sms.example.com' }, 'SMS_GATEWAY_TOKEN'],
    ['bad URL', { SMS_GATEWAY_URL: 'sms.example.com', SMS_GATEWAY_TOKEN: 't' }, 'SMS_GATEWAY_URL is not a URL'],
    ['bad scheme', { SMS_GATEWAY_URL: 'ftp://sms.example.com', SMS_GATEWAY_TOKEN: 't' }, 'must be an http(s) URL'],
    [
      'bad sender',
      { SMS_GATEWAY_URL: 'https://sms.example.com', SMS_GATEWAY_TOKEN: 't', SMS_DEFAULT_FROM: 'Way too long sender' },
      'SMS_DEFAULT_FROM an alphanumeric sender id must be at most 11',
    ],
    [
      'bad country code',
      { SMS_GATEWAY_URL: 'https://sms.example.com', SMS_GATEWAY_TOKEN: 't', SMS_DEFAULT_COUNTRY_CODE: '045' },
      'SMS_DEFAULT_COUNTRY_CODE',
    ],
  ])('%s: a problem naming what to set', (_name, env, problem) => {
    const checked = smsSettings(loadConfig({ ...base, ...env }).sms);
    expect('problem' in checked && checked.problem).toContain(problem);
  });
});

describe('createMessagingDeps without configuration', () => {
  it('builds, and every use fails with not_configured naming the variables', async () => {
    const deps = createMessagingDeps(loadConfig(base));
    expect(() => deps.transport.assertConfigured?.()).toThrow(
      expect.objectContaining({ code: 'not_configured', message: expect.stringContaining('SMTP_URL') }),
    );
    await expect(deps.transport.send({} as never)).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('MAIL_FROM'),
    });
    await expect(deps.gateway.send({} as never)).rejects.toMatchObject({
      code: 'not_configured',
      message: expect.stringContaining('SMS_GATEWAY_URL'),
    });
    deps.close();
  });

  it('configured: real adapters with the defaults', () => {
    const deps = createMessagingDeps(
      loadConfig({
        ...base,
        SMTP_HOST: '127.0.0.1',
        MAIL_FROM: 'crm@example.com',
        SMS_GATEWAY_URL: 'https://sms.example.com',
        SMS_GATEWAY_TOKEN: 't',
        SMS_DEFAULT_FROM: 'Acme',
      }),
    );
    expect(deps.transport.assertConfigured).toBeUndefined();
    expect(deps.transport.defaultFrom).toBe('crm@example.com');
    expect(deps.gateway.defaultFrom).toBe('Acme');
    deps.close();
  });
});
