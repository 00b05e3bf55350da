import type { Tenant, TestApp } from '../../../test/support/app';
import { makePerson } from '../../../test/support/factories';
import { uniquePhone } from '../../../test/support/sms';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';
import { withMailbox } from '../../../test/support/mail-suite';

// Offer templates, products, catalog, the offers report, and offers sent by e-mail and SMS
// through the messaging layer (a real local SMTP server and HTTP SMS gateway).
let app: TestApp;
let t: Tenant;
let smtp: LocalSmtp;
let gateway: LocalHttp;
let accountId: string;

beforeAll(async () => {
  gateway = await startHttp();
  gateway.respond(json(200, { id: 'gw-1', status: 'queued' }));
});
withMailbox('Offer catalog', (s) => ({ app, t, smtp, accountId } = s), {
  env: () => ({
    SMS_GATEWAY_URL: `${gateway.url}/sms`,
    SMS_GATEWAY_TOKEN: 'gw-token',
    SMS_DEFAULT_FROM: 'Acme',
    SMS_DEFAULT_COUNTRY_CODE: '45',
    OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
  }),
});
afterAll(() => gateway?.close());

type Row = Record<string, unknown>;
const ids = (body: { data: Row[] }) => body.data.map((r) => r._id);

describe('offer templates', () => {
  it('admin writes; the list has summaries without pages; duplicate; one default', async () => {
    const page = { id: 'p1', order: 1, title: 'Cover', elements: [{ type: 'text', content: 'Hello' }], settings: {} };
    const a = await t.http.post('/api/v1/offer-templates', {
      name: 'Standard',
      pages: [page],
      isDefault: true,
      defaultValidity: 14,
    });
    expectCreated(a, { name: 'Standard', pages: [page], isDefault: true, defaultValidity: 14 });
    const b = await t.http.post('/api/v1/offer-templates', { name: 'Premium', isDefault: true });
    const list = await t.http.get('/api/v1/offer-templates');
    expect(list.body).toMatchObject({ page: 1, limit: 20 });
    const standard = list.body.data.find((x: Row) => x._id === a.body.data._id);
    expect(standard).toMatchObject({ name: 'Standard', pageCount: 1, isDefault: false });
    expect(standard).not.toHaveProperty('pages');
    expect(list.body.data.find((x: Row) => x._id === b.body.data._id).isDefault).toBe(true);

    const copy = await t.http.post(`/api/v1/offer-templates/${a.body.data._id}/duplicate`);
    expectCreated(copy, { name: 'Standard (copy)', pages: [page], isDefault: false });
    expect(copy.body.data._id).not.toBe(a.body.data._id);

    const patched = await t.http.patch(`/api/v1/offer-templates/${a.body.data._id}`, {
      isActive: false,
      defaultTerms: 'Net 8',
    });
    expect(patched.body.data).toMatchObject({ isActive: false, defaultTerms: 'Net 8', pages: [page] });
    expect(ids((await t.http.get('/api/v1/offer-templates?limit=100')).body)).not.toContain(a.body.data._id);
    expect(ids((await t.http.get('/api/v1/offer-templates?limit=100&includeInactive=true')).body)).toContain(
      a.body.data._id,
    );

    const member = await app.key(t.workspaceId, ['read', 'write'], 'member');
    expect((await member.get(`/api/v1/offer-templates/${a.body.data._id}`)).status).toBe(200);
    for (const res of [
      await member.post('/api/v1/offer-templates', { name: 'x' }),
      await member.patch(`/api/v1/offer-templates/${a.body.data._id}`, { name: 'x' }),
      await member.delete(`/api/v1/offer-templates/${a.body.data._id}`),
      await member.post(`/api/v1/offer-templates/${a.body.data._id}/duplicate`),
    ])
      expect(res.status).toBe(403);

    expect((await t.http.delete(`/api/v1/offer-templates/${copy.body.data._id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/offer-templates/${copy.body.data._id}`)).status).toBe(404);
  });

  it.each([
    ['no name', {}, /name/],
    ['101 pages', { name: 'x', pages: Array.from({ length: 101 }, () => ({})) }, /at most 100 pages/],
    ['pages not an array', { name: 'x', pages: 'cover' }, /pages/],
    ['defaultValidity 0', { name: 'x', defaultValidity: 0 }, /defaultValidity/],
    [
      'more than 1 MB',
      { name: 'x', headerElements: Array.from({ length: 300 }, () => 'x'.repeat(4000)) },
      /at most 1 MB/,
    ],
  ])('400 for %s', async (_case, body, message) => {
    expectError(await t.http.post('/api/v1/offer-templates', body), 400, message);
  });
});

describe('products and catalog', () => {
  it('CRUD with filters; catalog items may point at an existing product', async () => {
    const created = await t.http.post('/api/v1/products', {
      name: 'Solar panel',
      unitPrice: 1499.95,
      unit: 'pcs',
      pricingType: 'advanced',
      category: 'energy',
      tieredPricing: [{ minQuantity: 10, unitPrice: 1399 }],
      variants: [{ name: 'Black', unitPrice: 1599 }],
      conditionalRules: [{ when: 'roof=flat', add: 200 }],
    });
    expect(created.status).toBe(201);
    const id = created.body.data._id;
    expect(created.body.data).toMatchObject({
      unitPrice: 1499.95,
      pricingType: 'advanced',
      isActive: true,
      tieredPricing: [{ minQuantity: 10, unitPrice: 1399 }],
    });
    await t.http.post('/api/v1/products', { name: 'Cable', category: 'parts', isActive: false });
    expect(ids((await t.http.get('/api/v1/products?category=energy')).body)).toEqual([id]);
    expect(ids((await t.http.get('/api/v1/products?q=solar')).body)).toEqual([id]);
    expect((await t.http.get('/api/v1/products?isActive=false')).body.data.map((p: Row) => p.name)).toEqual(['Cable']);
    expect((await t.http.put(`/api/v1/products/${id}`, { unitPrice: 1299, variants: [] })).body.data).toMatchObject({
      unitPrice: 1299,
      variants: [],
    });
    expect((await t.http.post('/api/v1/products', { name: 'x', pricingType: 'tiered' })).status).toBe(400);
    expect((await t.http.post('/api/v1/products', { name: 'x', unitPrice: 1.0000001 })).status).toBe(400);

    const item = await t.http.post('/api/v1/catalog', {
      name: 'Solar package',
      productId: id,
      unitPrice: 25000,
      sortOrder: 2,
    });
    expect(item.status).toBe(201);
    await t.http.post('/api/v1/catalog', { name: 'Inspection', unitPrice: 500, sortOrder: 1 });
    expect((await t.http.get('/api/v1/catalog')).body.data.map((c: Row) => c.name)).toEqual([
      'Inspection',
      'Solar package',
    ]);
    const bad = await t.http.post('/api/v1/catalog', { name: 'x', productId: '0123456789abcdef01234567' });
    expectError(bad, 400, /productId: no product/);
    expect(
      (await t.http.post('/api/v1/catalog', { name: 'x', imageUrl: 'http://insecure.example/x.png' })).status,
    ).toBe(400);
    // Deleting the product leaves the catalog item, unlinked.
    expect((await t.http.delete(`/api/v1/products/${id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/catalog/${item.body.data._id}`)).body.data.productId).toBeNull();
    expect((await t.http.delete(`/api/v1/catalog/${item.body.data._id}`)).body).toEqual({ ok: true });
  });
});

describe('offers by e-mail and SMS', () => {
  it('send-email defaults to the linked person, sends the draft first and lands on the timeline', async () => {
    const email = `buyer-${Date.now()}@example.com`;
    const person = (await makePerson(t.http, { firstName: 'Bea', emails: [{ email }] })).body.data._id;
    const offer = (
      await t.http.post('/api/v1/offers', {
        title: 'Heat pump',
        personRef: person,
        lineItems: [{ name: 'Pump', unitPrice: 40000 }],
      })
    ).body.data;
    const res = await t.http.post(`/api/v1/offers/${offer._id}/send-email`, { senderAccountId: accountId });
    expect(res.status).toBe(200);
    expect(res.body.data.offer).toMatchObject({ status: 'sent', offerNumber: expect.any(String) });
    expect(res.body.data.email).toMatchObject({ to: email, accepted: [email] });
    const mail = smtp.received.find((m) => m.to.includes(email));
    expect(mail?.headers.subject).toBe(`Offer ${res.body.data.offer.offerNumber}: Heat pump`);
    expect(mail!.raw.replace(/=\r?\n/g, '')).toContain(`/public/offers/${res.body.data.offer.publicId}`);
    expect(mail!.raw).toContain('Hello Bea');
    const feed = await t.http.get(`/api/v1/people/${person}/activity-feed`);
    const types = feed.body.data.map((a: Row) => a.type);
    expect(types).toEqual(expect.arrayContaining(['email', 'offer_sent']));
    // A sent offer can be e-mailed again (to another address); a cancelled one cannot.
    expect(
      (
        await t.http.post(`/api/v1/offers/${offer._id}/send-email`, {
          senderAccountId: accountId,
          emailTo: 'other@example.com',
        })
      ).status,
    ).toBe(200);
    await t.http.post(`/api/v1/offers/${offer._id}/cancel`);
    expect((await t.http.post(`/api/v1/offers/${offer._id}/send-email`, { senderAccountId: accountId })).status).toBe(
      409,
    );
  });

  it('400 without a recipient or with a foreign mailbox, and the draft stays a draft', async () => {
    const offer = (await t.http.post('/api/v1/offers', { title: 'No one', lineItems: [{ name: 'x', unitPrice: 1 }] }))
      .body.data;
    const none = await t.http.post(`/api/v1/offers/${offer._id}/send-email`, { senderAccountId: accountId });
    expectError(none, 400, /emailTo/);
    const foreign = await (await app.tenant('Other mailbox')).http.post('/api/v1/offers', { title: 'x' });
    expect(foreign.status).toBe(201);
    const badAccount = await t.http.post(`/api/v1/offers/${offer._id}/send-email`, {
      emailTo: 'a@example.com',
      senderAccountId: '0123456789abcdef01234567',
    });
    expect(badAccount.status).toBe(400);
    expect((await t.http.post(`/api/v1/offers/${offer._id}/send-email`, { emailTo: 'not-an-address' })).status).toBe(
      400,
    );
    expect((await t.http.get(`/api/v1/offers/${offer._id}`)).body.data.status).toBe('draft');
  });

  it("send-sms needs the sms scope, defaults to the person's phone and sends the link through the gateway", async () => {
    const phone = uniquePhone();
    const person = (await makePerson(t.http, { firstName: 'Sam', phones: [{ phone }] })).body.data._id;
    const offer = (
      await t.http.post('/api/v1/offers', {
        title: 'Windows',
        personRef: person,
        lineItems: [{ name: 'Window', quantity: 4, unitPrice: 2500 }],
      })
    ).body.data;
    const noSms = await app.key(t.workspaceId, ['read', 'write'], 'owner');
    expect((await noSms.post(`/api/v1/offers/${offer._id}/send-sms`, {})).status).toBe(403);
    gateway.requests.length = 0;
    const res = await t.http.post(`/api/v1/offers/${offer._id}/send-sms`, {});
    expect(res.status).toBe(200);
    expect(res.body.data.sms).toMatchObject({ to: phone, status: 'sent' });
    expect(gateway.requests).toHaveLength(1);
    expect(gateway.requests[0]!.body).toContain(`/public/offers/${res.body.data.offer.publicId}`);
    const lonely = (await t.http.post('/api/v1/offers', { title: 'x', lineItems: [{ name: 'x', unitPrice: 1 }] })).body
      .data;
    expectError(await t.http.post(`/api/v1/offers/${lonely._id}/send-sms`, {}), 400, /phoneTo/);
  });
});

describe('GET /reports/offers', () => {
  it('counts and values by status, conversion and averages', async () => {
    const ws = await app.tenant('Offer report');
    const make = async (unitPrice: number) =>
      (await ws.http.post('/api/v1/offers', { title: 'R', lineItems: [{ name: 'x', unitPrice, vatRate: 25 }] })).body
        .data;
    const [d, s1, s2, s3] = [await make(100), await make(200), await make(400), await make(800)];
    for (const o of [s1, s2, s3]) await ws.http.post(`/api/v1/offers/${o._id}/send`);
    const pid = async (o: Row) => (await ws.http.get(`/api/v1/offers/${o._id}`)).body.data.publicId;
    await app.anonymous.post(`/public/offers/${await pid(s2)}/accept`, { name: 'Ann' });
    await app.anonymous.post(`/public/offers/${await pid(s3)}/decline`, {});
    const res = await ws.http.get('/api/v1/reports/offers');
    expectOk(res, {
      total: 4,
      totalValue: 1875,
      averageValue: 468.75,
      sent: 3,
      sentValue: 1750,
      accepted: 1,
      acceptedValue: 500,
      declined: 1,
      conversionRate: 33.33,
      averageAcceptedValue: 500,
      byCurrency: [{ currency: 'DKK', count: 4, value: 1875 }],
    });
    expect(res.body.data.byStatus).toEqual([
      { status: 'accepted', count: 1, value: 500 },
      { status: 'declined', count: 1, value: 1000 },
      { status: 'draft', count: 1, value: 125 },
      { status: 'sent', count: 1, value: 250 },
    ]);
    expect(d.total).toBe(125);
    const other = await app.tenant('Offer report other');
    expect((await other.http.get('/api/v1/reports/offers')).body.data.total).toBe(0);
    expect((await ws.http.get('/api/v1/reports/offers?dateFrom=2000-01-01&dateTo=2000-01-02')).body.data.total).toBe(0);
  });
});
