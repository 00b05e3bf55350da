import { createLogger } from '../../domain/logger';
import type { OutboxDispatcher } from '../../domain/outbox/dispatcher';
import { startTestApp, type Tenant, type TestApp } from '../support/app';
import {
  deleteIndexes,
  searchUntil,
  testMeili,
  titles,
  startSearchIndexing,
  uniqueIndexPrefix,
} from '../support/search';

// Offers are a search type: writes reach Meilisearch through the outbox like the other types.
const PREFIX = uniqueIndexPrefix('offers');
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'offer-search-test');
const meili = testMeili();
let app: TestApp;
let a: Tenant;
let b: Tenant;
let dispatcher: OutboxDispatcher;

beforeAll(async () => {
  app = await startTestApp({ MEILI_INDEX_PREFIX: PREFIX });
  [a, b] = await Promise.all([app.tenant('Offer search A'), app.tenant('Offer search B')]);
  dispatcher = await startSearchIndexing(app, [a.workspaceId, b.workspaceId], log);
});
afterAll(async () => {
  await dispatcher?.stop();
  await app?.close();
  await deleteIndexes(meili, PREFIX);
});
jest.setTimeout(90_000);

it("finds offers by title, number and company name, only in the caller's workspace", async () => {
  const company = (await a.http.post('/api/v1/companies', { name: 'Wolframite Roofing' })).body.data._id;
  const offer = (
    await a.http.post('/api/v1/offers', {
      title: 'Quartzite terrace',
      companyRef: company,
      lineItems: [{ name: 'Tiles', unitPrice: 100 }],
    })
  ).body.data;
  const found = await searchUntil(a.http, 'q=quartzite&types=offer', (body) =>
    titles(body, 'offer').includes('Quartzite terrace'),
  );
  expect(found.data.results.offer.hits[0]).toMatchObject({
    _id: offer._id,
    type: 'offer',
    subtitle: 'Wolframite Roofing · draft',
  });
  const sent = (await a.http.post(`/api/v1/offers/${offer._id}/send`)).body.data;
  await searchUntil(a.http, `q=${encodeURIComponent(sent.offerNumber)}&types=offer`, (body) =>
    titles(body, 'offer').includes(`${sent.offerNumber} Quartzite terrace`),
  );
  await searchUntil(a.http, 'q=wolframite&types=offer', (body) => titles(body, 'offer').length === 1);
  expect((await b.http.get('/api/v1/search?q=quartzite&types=offer')).body.data.results.offer.total).toBe(0);
});
