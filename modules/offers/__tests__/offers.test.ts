import type { OutboxDispatcher } from '../../../platform/outbox/dispatcher';
import { previewKey, previewToken } from '../offer-public.service';
import { parseSecretsKey } from '../../../platform/shared/secret-box';
import { HttpClient, startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { webhookDispatcher } from '../../../test/support/webhook-dispatcher';
import { makeCompany, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { startReceiver, type Receiver } from '../../../test/support/webhooks';
import { expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let other: Tenant;
let receiver: Receiver;
let dispatcher: OutboxDispatcher;

beforeAll(async () => {
  app = await startTestApp({ OUTBOUND_ALLOW_HOSTS: '127.0.0.1' });
  [t, other] = await Promise.all([app.tenant('Offers'), app.tenant('Offers other')]);
  receiver = await startReceiver();
  dispatcher = webhookDispatcher(app, [t.workspaceId]);
});
afterAll(async () => {
  await dispatcher?.stop();
  await receiver?.close();
  await app?.close();
});

const line = (over: Record<string, unknown> = {}) => ({ name: 'Consulting', quantity: 2, unitPrice: 1000, ...over });
async function draft(body: Record<string, unknown> = {}, http = t.http): Promise<Record<string, any>> {
  const res = await http.post('/api/v1/offers', { title: 'Website', lineItems: [line()], ...body });
  expect(res.status).toBe(201);
  return res.body.data;
}
async function sent(body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const offer = await draft(body);
  const res = await t.http.post(`/api/v1/offers/${offer._id}/send`);
  expect(res.status).toBe(200);
  return res.body.data;
}
const publicPath = (publicId: string) => `/public/offers/${publicId}`;
const json = { headers: { accept: 'application/json' } };

describe('offer totals', () => {
  it.each([
    ['default VAT (25%) from settings', [line()], { subtotal: 2000, vatAmount: 500, total: 2500 }],
    [
      'half a minor unit rounds away from zero per line',
      [line({ quantity: 2.5, unitPrice: 19.99 })],
      { subtotal: 49.98, vatAmount: 12.5, total: 62.48 },
    ],
    [
      'per-line VAT rates',
      [line({ quantity: 1, unitPrice: 100, vatRate: 0 }), line({ quantity: 3, unitPrice: 0.1, vatRate: 25 })],
      { subtotal: 100.3, vatAmount: 0.08, total: 100.38 },
    ],
    [
      'a discount line',
      [line({ quantity: 1, unitPrice: 1000 }), { description: 'Discount', unitPrice: -100.555 }],
      { subtotal: 899.44, vatAmount: 224.86, total: 1124.3 },
    ],
    [
      'many small lines stay exact',
      Array.from({ length: 10 }, () => line({ quantity: 1, unitPrice: 0.1, vatRate: 0 })),
      { subtotal: 1, vatAmount: 0, total: 1 },
    ],
  ])('%s', async (_case, lineItems, expected) => {
    const offer = await draft({ lineItems });
    expect({ subtotal: offer.subtotal, vatAmount: offer.vatAmount, total: offer.total }).toEqual(expected);
    expect(offer.totalMinor).toBe(Math.round(expected.total * 100));
    expect(offer.lineItems.every((l: { id: string }) => /^[0-9a-f]{24}$/.test(l.id))).toBe(true);
    expect(offer.status).toBe('draft');
  });

  it('PUT lineItems replaces the lines and recomputes', async () => {
    const offer = await draft();
    const res = await t.http.put(`/api/v1/offers/${offer._id}`, {
      lineItems: [line({ quantity: 1, unitPrice: 10, vatRate: 25 })],
      title: 'Renamed',
    });
    expectOk(res, { title: 'Renamed', subtotal: 10, vatAmount: 2.5, total: 12.5 });
    expect(res.body.data.lineItems).toHaveLength(1);
  });

  it.each([
    ['no title', { lineItems: [] }, /title/],
    [
      'a line without name or description',
      { title: 'x', lineItems: [{ unitPrice: 1 }] },
      /lineItems\.0\.name: name or description is required/,
    ],
    ['quantity 0', { title: 'x', lineItems: [line({ quantity: 0 })] }, /quantity/],
    [
      '7 decimals in a price',
      { title: 'x', lineItems: [line({ unitPrice: 1.0000001 })] },
      /unitPrice: must have at most 6 decimals/,
    ],
    ['VAT above 100', { title: 'x', lineItems: [line({ vatRate: 101 })] }, /vatRate/],
    ['a price above the limit', { title: 'x', lineItems: [line({ unitPrice: 1_000_000_001 })] }, /unitPrice/],
    ['501 lines', { title: 'x', lineItems: Array.from({ length: 501 }, () => line()) }, /at most 500 line items/],
    ['a price as a string', { title: 'x', lineItems: [line({ unitPrice: '10' })] }, /unitPrice/],
    ['a bad validUntil', { title: 'x', validUntil: 'soon' }, /validUntil/],
    ['an unknown company', { title: 'x', companyRef: '0123456789abcdef01234567' }, /companyRef: no company/],
    ['an unknown template', { title: 'x', templateId: '0123456789abcdef01234567' }, /templateId: no offer template/],
    ['an unknown offer type', { title: 'x', offerTypeId: '0123456789abcdef01234567' }, /offerTypeId: no offer type/],
  ])('400 for %s', async (_case, body, message) => {
    expectError(await t.http.post('/api/v1/offers', body), 400, message);
  });

  it('500 lines are accepted', async () => {
    const offer = await draft({ lineItems: Array.from({ length: 500 }, () => line({ quantity: 1, unitPrice: 1 })) });
    expect(offer.subtotal).toBe(500);
  });

  it("links must exist in the caller's workspace", async () => {
    const foreignCompany = (await makeCompany(other.http)).body.data._id;
    const res = await t.http.post('/api/v1/offers', { title: 'x', companyRef: foreignCompany });
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ path: 'companyRef', error: expect.stringMatching(/no company/) }]);
  });
});

describe('lifecycle', () => {
  it('only drafts can be edited or deleted; send and cancel follow the state table', async () => {
    const offer = await sent();
    for (const res of [
      await t.http.put(`/api/v1/offers/${offer._id}`, { title: 'Changed' }),
      await t.http.delete(`/api/v1/offers/${offer._id}`),
      await t.http.post(`/api/v1/offers/${offer._id}/send`),
    ]) {
      expectError(res, 409, /sent/);
    }
    expect((await t.http.post(`/api/v1/offers/${offer._id}/cancel`)).body.data.status).toBe('cancelled');
    expect((await t.http.post(`/api/v1/offers/${offer._id}/cancel`)).status).toBe(409);
    const d = await draft();
    expect((await t.http.post(`/api/v1/offers/${d._id}/cancel`)).status).toBe(200);
    const gone = await draft();
    expect((await t.http.delete(`/api/v1/offers/${gone._id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/offers/${gone._id}`)).status).toBe(404);
  });

  it('send needs a line item', async () => {
    const empty = await draft({ lineItems: [] });
    expectError(await t.http.post(`/api/v1/offers/${empty._id}/send`), 400, /line item/);
  });

  it('send freezes a snapshot, numbers the offer, gives a publicId and is readable by publicId', async () => {
    const company = (await makeCompany(t.http, { name: 'Snapshot ApS' })).body.data._id;
    const offer = await sent({ companyRef: company, validUntil: '2099-01-31' });
    expect(offer).toMatchObject({
      status: 'sent',
      offerNumber: expect.stringMatching(/^OFF-\d+$/),
      publicId: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      validUntil: '2099-01-31',
    });
    expect(offer.publicUrl).toBe(`${app.config.publicBaseUrl}/public/offers/${offer.publicId}`);
    const byPublic = await t.http.get(`/api/v1/offers/${offer.publicId}`);
    expect(byPublic.body.data._id).toBe(offer._id);
    expect((await other.http.get(`/api/v1/offers/${offer.publicId}`)).status).toBe(404);
    expect((await other.http.get(`/api/v1/offers/${offer._id}`)).status).toBe(404);
    // The company's later rename does not change what the recipient sees.
    await t.http.put(`/api/v1/companies/${company}`, { name: 'Renamed ApS' });
    const page = await app.anonymous.get(publicPath(offer.publicId), json);
    expect(page.body.data.offer.customer.company.name).toBe('Snapshot ApS');
    // Timeline of the company, the outbox event for automations.
    const feed = await t.http.get(`/api/v1/companies/${company}/activity-feed`);
    expect(JSON.stringify(feed.body)).toContain(`Offer ${offer.offerNumber} sent`);
    const events = await eventsFor(app.runtime.deps.orm, offer._id);
    expect(events.map((e) => e.type)).toEqual(['offer_created', 'offer_sent', 'offer_viewed']);
    expect(events[1]!.payload).toMatchObject({
      offer: { _id: offer._id, status: 'sent', offerNumber: offer.offerNumber },
      company: { name: 'Snapshot ApS' },
    });
  });

  it('20 parallel sends never share a number (consecutive, no gaps)', async () => {
    const offers = await Promise.all(Array.from({ length: 20 }, () => draft()));
    const results = await Promise.all(offers.map((o) => t.http.post(`/api/v1/offers/${o._id}/send`)));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    const numbers = results
      .map((r) => Number(String(r.body.data.offerNumber).replace(/^\D+/, '')))
      .sort((a, b) => a - b);
    expect(new Set(numbers).size).toBe(20);
    expect(numbers[19]! - numbers[0]!).toBe(19);
    // The same draft sent twice at once is sent once.
    const one = await draft();
    const twice = await Promise.all([
      t.http.post(`/api/v1/offers/${one._id}/send`),
      t.http.post(`/api/v1/offers/${one._id}/send`),
    ]);
    expect(twice.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('lists with the spec envelope and filters', async () => {
    const company = (await makeCompany(t.http)).body.data._id;
    const a = await draft({ title: 'Filter kitchen', companyRef: company });
    const b = await sent({ title: 'Filter bathroom', companyRef: company });
    const list = await t.http.get(`/api/v1/offers?companyRef=${company}`);
    expect(list.body).toMatchObject({ page: 1, limit: 20, total: 2 });
    expect(
      (await t.http.get(`/api/v1/offers?companyRef=${company}&status=draft`)).body.data.map((o: any) => o._id),
    ).toEqual([a._id]);
    expect(
      (await t.http.get(`/api/v1/offers?q=${encodeURIComponent(b.offerNumber)}`)).body.data.map((o: any) => o._id),
    ).toEqual([b._id]);
    expect((await t.http.get('/api/v1/offers?status=nope')).status).toBe(400);
    expect((await t.http.get('/api/v1/offers?limit=101')).status).toBe(400);
    expect((await other.http.get(`/api/v1/offers?companyRef=${company}`)).body.total).toBe(0);
  });
});

describe('offer settings', () => {
  it('creates defaults on first read, merges nested objects, replaces arrays, admin only', async () => {
    const fresh = await app.tenant('Offer settings');
    const first = await fresh.http.get('/api/v1/workspace/offer-settings');
    expect(first.status).toBe(200);
    for (const key of [
      'companyInfo',
      'bankInfo',
      'defaults',
      'branding',
      'emailSettings',
      'smsSettings',
      'acceptanceSettings',
      'trackingSettings',
      'sequenceSettings',
      'orderConfirmationSettings',
      'numbering',
      'contractSettings',
      'defaultTerms',
      'defaultPaymentTerms',
      'lineItemUnits',
      'billingFrequencies',
      'setupCompleted',
    ]) {
      expect(first.body.data).toHaveProperty(key);
    }
    expect(first.body.data.numbering).toEqual({ prefix: 'OFF-', nextNumber: 1 });
    const patched = await fresh.http.patch('/api/v1/workspace/offer-settings', {
      defaults: { vatRate: 12.5 },
      lineItemUnits: [{ value: 'm2', label: 'm²' }],
      numbering: { prefix: 'Q-', nextNumber: 1000 },
      bankInfo: { iban: 'DK5000400440116243' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.defaults).toMatchObject({ vatRate: 12.5, currency: 'DKK', defaultValidityDays: 30 });
    expect(patched.body.data.lineItemUnits).toEqual([{ value: 'm2', label: 'm²' }]);
    expect(patched.body.data.bankInfo).toMatchObject({ iban: 'DK5000400440116243', bankName: null });
    const offer = await draft({ lineItems: [line({ quantity: 1, unitPrice: 100 })] }, fresh.http);
    expect(offer.vatAmount).toBe(12.5);
    expect((await fresh.http.post(`/api/v1/offers/${offer._id}/send`)).body.data.offerNumber).toBe('Q-1000');
    expect((await fresh.http.get('/api/v1/workspace/offer-settings')).body.data.numbering).toEqual({
      prefix: 'Q-',
      nextNumber: 1001,
    });

    const member = await app.key(fresh.workspaceId, ['read', 'write'], 'member');
    expect((await member.get('/api/v1/workspace/offer-settings')).status).toBe(200);
    expect((await member.patch('/api/v1/workspace/offer-settings', { setupCompleted: true })).status).toBe(403);
  });

  it.each([
    ['an unknown key', { colour: 'red' }, /colour/],
    ['VAT as text', { defaults: { vatRate: 'high' } }, /defaults\.vatRate/],
    ['nextNumber 0', { numbering: { nextNumber: 0 } }, /numbering\.nextNumber/],
    ['a prefix with markup', { numbering: { prefix: '<b>' } }, /numbering\.prefix/],
    [
      '101 units',
      { lineItemUnits: Array.from({ length: 101 }, (_, i) => ({ value: `u${i}`, label: 'u' })) },
      /at most 100 units/,
    ],
    ['a currency of 4 letters', { defaults: { currency: 'DKKK' } }, /currency/],
  ])('400 for %s', async (_case, body, message) => {
    expectError(await t.http.patch('/api/v1/workspace/offer-settings', body), 400, message);
  });
});

describe('public link', () => {
  it('renders escaped HTML and JSON without a key; unknown ids are 404', async () => {
    const offer = await sent({
      title: '<script>alert(1)</script> & co',
      lineItems: [line({ name: '<img src=x onerror=alert(1)>' })],
    });
    const html = await app.anonymous.get(publicPath(offer.publicId));
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    expect(html.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(html.body).not.toContain('<script>alert');
    expect(html.body).not.toContain('<img src=x');
    expect(html.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; co');
    expect(html.body).toContain(`action="/public/offers/${offer.publicId}/accept"`);
    const data = (await app.anonymous.get(publicPath(offer.publicId), json)).body.data;
    expect(data).toMatchObject({
      publicId: offer.publicId,
      status: 'sent',
      canAccept: true,
      canDecline: true,
      offerNumber: offer.offerNumber,
    });
    // Nothing about the workspace beyond the snapshot: no internal ids.
    const text = JSON.stringify(data);
    expect(text).not.toContain(t.workspaceId);
    expect(text).not.toContain(offer._id);
    expect((await app.anonymous.get(publicPath('A'.repeat(22)))).status).toBe(404);
    expect((await app.anonymous.get(publicPath('short'))).status).toBe(404);
    expect((await app.anonymous.post(`${publicPath('B'.repeat(22))}/accept`, { name: 'x' })).status).toBe(404);
  });

  it('accepts once with a name, events and webhooks follow; a second answer is 409', async () => {
    const hook = await t.http.post('/api/v1/webhooks/subscriptions', {
      url: receiver.url,
      events: ['offer.sent', 'offer.accepted', 'offer.declined'],
      name: 'Offers',
    });
    expect(hook.status).toBe(201);
    receiver.secrets = [hook.body.data.secret];
    await dispatcher.drainOnce();
    receiver.received.length = 0;
    const person = (await makePerson(t.http, { firstName: 'Ann' })).body.data._id;
    const offer = await sent({ personRef: person });
    const path = publicPath(offer.publicId);
    const noName = await app.anonymous.post(`${path}/accept`, {});
    expectError(noName, 400, /name/);
    const accepted = await app.anonymous.post(
      `${path}/accept`,
      { name: 'Ann Buyer', comment: 'Go' },
      { headers: { 'user-agent': 'jest' } },
    );
    expectOk(accepted, {
      status: 'accepted',
      canAccept: false,
      response: { decision: 'accepted', name: 'Ann Buyer' },
    });
    expect((await app.anonymous.post(`${path}/accept`, { name: 'Again' })).status).toBe(409);
    expect((await app.anonymous.post(`${path}/decline`, {})).status).toBe(409);
    const stored = (await t.http.get(`/api/v1/offers/${offer._id}`)).body.data;
    expect(stored).toMatchObject({
      status: 'accepted',
      response: { decision: 'accepted', name: 'Ann Buyer', comment: 'Go', userAgent: 'jest' },
    });
    const events = (await eventsFor(app.runtime.deps.orm, offer._id)).map((e) => e.type);
    expect(events).toEqual(['offer_created', 'offer_sent', 'offer_accepted']);
    const feed = await t.http.get(`/api/v1/people/${person}/activity-feed`);
    expect(JSON.stringify(feed.body)).toContain('accepted by Ann Buyer');
    await dispatcher.drainOnce();
    const types = receiver.received.map((r) => JSON.parse(r.body).type);
    expect(types).toEqual(['offer.sent', 'offer.accepted']);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect(JSON.parse(receiver.received[0]!.body).data.offer).toMatchObject({
      _id: offer._id,
      offerNumber: offer.offerNumber,
    });
  });

  it('declines (form post redirects back to the page), cancelled and expired offers cannot be answered', async () => {
    const offer = await sent();
    const form = await app.anonymous.post(`${publicPath(offer.publicId)}/decline`, undefined, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: 'reason=Too+expensive',
    });
    // fetch follows the 303 back to the page, which now shows the answer.
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toMatch(/text\/html/);
    expect(form.body).toContain('This offer was declined');
    expect((await t.http.get(`/api/v1/offers/${offer._id}`)).body.data).toMatchObject({
      status: 'declined',
      response: { decision: 'declined', comment: 'Too expensive' },
    });
    expect((await eventsFor(app.runtime.deps.orm, offer._id)).map((e) => e.type)).toContain('offer_rejected');

    const cancelled = await sent();
    await t.http.post(`/api/v1/offers/${cancelled._id}/cancel`);
    expect((await app.anonymous.post(`${publicPath(cancelled.publicId)}/accept`, { name: 'x' })).status).toBe(409);
    expect((await app.anonymous.get(publicPath(cancelled.publicId), json)).body.data).toMatchObject({
      status: 'cancelled',
      canAccept: false,
    });

    const expired = await sent({ validUntil: '2020-01-01' });
    expect(expired.status).toBe('expired');
    const late = await app.anonymous.post(`${publicPath(expired.publicId)}/accept`, { name: 'Late' });
    expectError(late, 409, /expired/);
    expect((await t.http.get('/api/v1/offers?status=expired&limit=100')).body.data.map((o: any) => o._id)).toContain(
      expired._id,
    );
    expect((await t.http.get('/api/v1/offers?status=sent&limit=100')).body.data.map((o: any) => o._id)).not.toContain(
      expired._id,
    );
  });

  it('acceptanceSettings: decline can be turned off and a name may be optional', async () => {
    const ws = await app.tenant('Acceptance');
    await ws.http.patch('/api/v1/workspace/offer-settings', {
      acceptanceSettings: { allowDecline: false, requireName: false },
    });
    const offer = await draft({}, ws.http);
    const s = (await ws.http.post(`/api/v1/offers/${offer._id}/send`)).body.data;
    expect((await app.anonymous.get(publicPath(s.publicId), json)).body.data.canDecline).toBe(false);
    expect((await app.anonymous.post(`${publicPath(s.publicId)}/decline`, {})).status).toBe(409);
    expect((await app.anonymous.post(`${publicPath(s.publicId)}/accept`, {})).status).toBe(200);
  });
});

describe('preview token', () => {
  it('a draft gets a signed, expiring preview; a sent offer its public link', async () => {
    const offer = await draft({ title: 'Preview me' });
    const res = await t.http.get(`/api/v1/offers/${offer._id}/preview-token`);
    expectOk(res, { kind: 'preview', url: expect.stringContaining('/public/offers/preview/') });
    expect(Date.parse(res.body.data.expiresAt) - Date.now()).toBeGreaterThan(59 * 60_000);
    const path = new URL(res.body.data.url).pathname;
    const page = await app.anonymous.get(path, json);
    expectOk(page, { preview: true, title: 'Preview me', canAccept: false, publicId: null });
    expect((await app.anonymous.get(path)).body).toContain('Preview: this is how the offer will look');
    // Tampered or expired tokens are 404.
    const token = res.body.data.token as string;
    expect(
      (await app.anonymous.get(`/public/offers/preview/${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`))
        .status,
    ).toBe(404);
    const key = previewKey(parseSecretsKey(app.config.secretsKey)!);
    const stale = previewToken(key, t.workspaceId, offer._id, new Date(Date.now() - 1000));
    expect((await app.anonymous.get(`/public/offers/preview/${stale}`)).status).toBe(404);
    const forOther = previewToken(key, other.workspaceId, offer._id, new Date(Date.now() + 60_000));
    expect((await app.anonymous.get(`/public/offers/preview/${forOther}`)).status).toBe(404);
    // After send: the public link.
    const s = (await t.http.post(`/api/v1/offers/${offer._id}/send`)).body.data;
    expect((await t.http.get(`/api/v1/offers/${offer._id}/preview-token`)).body.data).toMatchObject({
      kind: 'public',
      publicId: s.publicId,
      url: s.publicUrl,
    });
    expect((await other.http.get(`/api/v1/offers/${offer._id}/preview-token`)).status).toBe(404);
  });

  it('the preview does not count views; the public page does', async () => {
    const offer = await sent();
    await app.anonymous.get(publicPath(offer.publicId));
    await app.anonymous.get(publicPath(offer.publicId), json);
    expect((await t.http.get(`/api/v1/offers/${offer._id}`)).body.data.viewCount).toBe(2);
  });
});

describe('access', () => {
  it('a read-only key reads but cannot write; no key is 401', async () => {
    const reader = await app.key(t.workspaceId, ['read']);
    expect((await reader.get('/api/v1/offers')).status).toBe(200);
    expect((await reader.post('/api/v1/offers', { title: 'x' })).status).toBe(403);
    expect((await new HttpClient(app.baseUrl).get('/api/v1/offers')).status).toBe(401);
  });
});
