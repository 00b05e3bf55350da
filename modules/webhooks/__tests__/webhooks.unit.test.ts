import { OUTBOX_TO_WEBHOOK, subscribedTo, webhookTypeOf } from '../event-types';
import { generateSecret, maskWebhookSecret, openSecret, sealSecret } from '../secrets';
import { STANDARD_RETRY_SCHEDULE_MS, parseSchedule, webhookEnv } from '../settings';
import { webhookBody } from '../subscriber';

describe('retry schedule setting', () => {
  it('defaults to the Standard Webhooks schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h', () => {
    expect(webhookEnv({}).retryScheduleMs).toEqual(STANDARD_RETRY_SCHEDULE_MS);
    expect(parseSchedule('5s,5m,30m,2h,5h,10h,10h')).toEqual(STANDARD_RETRY_SCHEDULE_MS);
  });
  it.each([
    ['1s, 250ms ,2', [1000, 250, 2]],
    ['0.5s', [500]],
  ])('reads %s', (raw, ms) => expect(parseSchedule(raw)).toEqual(ms));
  it.each([',', '5 minutes', '-1s', '1d', Array(21).fill('1s').join(',')])('refuses %j', (raw) => {
    expect(() => webhookEnv({ WEBHOOK_RETRY_SCHEDULE: raw })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
  });
  it('validates jitter and the disable threshold', () => {
    expect(() => webhookEnv({ WEBHOOK_RETRY_JITTER: '1.5' })).toThrow(/JITTER/);
    expect(() => webhookEnv({ WEBHOOK_DISABLE_AFTER: '0' })).toThrow(/WEBHOOK_DISABLE_AFTER/);
    expect(webhookEnv({ WEBHOOK_TIMEOUT_MS: '60000' }).timeoutMs).toBe(10_000);
  });
});

describe('secrets', () => {
  it('seals with AES-GCM under a key (a different ciphertext each time) and opens again; plain without a key', () => {
    const secret = generateSecret();
    const a = sealSecret(secret, 'k');
    expect(a).not.toContain(secret.slice(6));
    expect(a).not.toBe(sealSecret(secret, 'k'));
    expect(openSecret(a, 'k')).toBe(secret);
    expect(() => openSecret(a, 'other key')).toThrow();
    expect(() => openSecret(a, undefined)).toThrow(/SECRETS_ENCRYPTION_KEY/);
    expect(openSecret(sealSecret(secret, undefined), 'k')).toBe(secret);
    expect(maskWebhookSecret(secret)).toBe(`whsec_****${secret.slice(-4)}`);
  });
});

describe('event mapping', () => {
  it('maps outbox names to dotted webhook types; unmapped events are not sent', () => {
    expect(webhookTypeOf('company_created')).toBe('company.created');
    expect(webhookTypeOf('deal_stage_changed')).toBe('deal.stage_changed');
    expect(webhookTypeOf('event_updated')).toBe('calendar_event.updated');
    expect(webhookTypeOf('automation_changed')).toBeUndefined();
    expect(Object.values(OUTBOX_TO_WEBHOOK).every((t) => /^[a-z_]+\.[a-z_]+$/.test(t))).toBe(true);
    expect(subscribedTo(['*'], 'lead.created')).toBe(true);
    expect(subscribedTo(['lead.updated'], 'lead.created')).toBe(false);
  });
  it('body { type, timestamp, data } without internal keys', () => {
    const body = JSON.parse(
      webhookBody('lead.created', new Date('2030-01-01T00:00:00Z'), {
        lead: { _id: 'x' },
        causedBy: { executionId: 'e' },
      }),
    );
    expect(body).toEqual({ type: 'lead.created', timestamp: '2030-01-01T00:00:00.000Z', data: { lead: { _id: 'x' } } });
  });
});
