import { DeliveryError } from '../../../platform/ports/delivery-error.port';
import { createHttpSmsGateway } from '../../../adapters/sms/http-sms-gateway';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';

let server: LocalHttp;
beforeAll(async () => {
  server = await startHttp();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const gateway = (opts: { timeoutMs?: number; allowHosts?: string[] } = {}) =>
  createHttpSmsGateway(
    { url: `${server.url}/v1/sms`, token: 'tok-123', defaultFrom: 'Acme' },
    { allowHosts: opts.allowHosts ?? ['127.0.0.1'], timeoutMs: opts.timeoutMs },
  );
const sms = { to: '+4512345678', from: 'Acme', message: 'Hej Ann', reference: 'out-1' };

describe('HTTP SMS gateway', () => {
  it('POSTs the documented JSON with bearer token and idempotency key; reads id and status', async () => {
    server.respond(json(201, { id: 'gw-42', status: 'queued' }));
    await expect(gateway().send(sms)).resolves.toEqual({ providerMessageId: 'gw-42', status: 'queued' });
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', url: '/v1/sms' });
    expect(req!.headers.authorization).toBe('Bearer tok-123');
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['idempotency-key']).toBe('out-1');
    expect(JSON.parse(req!.body)).toEqual({ to: '+4512345678', from: 'Acme', message: 'Hej Ann' });
  });

  it.each([
    ['numeric id, no status', { id: 7 }, { providerMessageId: '7', status: 'sent' }],
    ['messageId instead of id', { messageId: 'm-1' }, { providerMessageId: 'm-1', status: 'sent' }],
    ['no id', {}, { providerMessageId: null, status: 'sent' }],
    ['not JSON', 'OK', { providerMessageId: null, status: 'sent' }],
  ])('2xx with %s is accepted', async (_name, body, expected) => {
    server.respond(json(200, body));
    await expect(gateway().send(sms)).resolves.toEqual(expected);
  });

  it.each([
    [400, { error: 'invalid number' }, true, 'invalid number'],
    [401, { message: 'bad token' }, true, 'bad token'],
    [429, { error: 'slow down' }, false, 'slow down'],
    [500, 'boom', false, 'boom'],
    [503, '', false, 'empty body'],
  ])('%i: not sent, with the gateway message', async (status, body, permanent, text) => {
    server.respond(json(status, body));
    const err = await gateway()
      .send(sms)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeliveryError);
    expect(err).toMatchObject({ code: 'upstream_failed', outcome: 'not_sent', permanent });
    expect((err as Error).message).toContain(`answered ${status}`);
    expect((err as Error).message).toContain(text);
  });

  it('no answer within the timeout: outcome unknown (the gateway may have sent it)', async () => {
    server.respond(() => undefined);
    const err = await gateway({ timeoutMs: 200 })
      .send(sms)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'upstream_failed', outcome: 'unknown' });
  });

  it('a private gateway host that is not allow-listed is a configuration error', async () => {
    const err = await gateway({ allowHosts: [] })
      .send(sms)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'not_configured' });
    expect((err as Error).message).toContain('OUTBOUND_ALLOW_HOSTS');
    expect(server.requests).toHaveLength(0);
  });
});
