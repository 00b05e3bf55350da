import type { Tenant } from '../../../test/support/app';
import { searchUntil, titles, uniqueIndexPrefix } from '../../../test/support/search';
import { withSearchIndexing } from '../../../test/support/search-suite';

// Offers are a search type: writes reach Meilisearch through the outbox like the other types.
const PREFIX = uniqueIndexPrefix('offers');
let a: Tenant;
let b: Tenant;

withSearchIndexing(PREFIX, ['Offer search A', 'Offer search B'], (s) => ({ a, b } = s));
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
