import type { Tenant } from '../../../test/support/app';
import { makeCompany } from '../../../test/support/factories';
import { searchUntil, titles, uniqueIndexPrefix } from '../../../test/support/search';
import { withSearchIndexing } from '../../../test/support/search-suite';

// Tickets reach Meilisearch through the outbox, like every searchable type (per-run index prefix).
const PREFIX = uniqueIndexPrefix('supsearch');
let a: Tenant;
let b: Tenant;

withSearchIndexing(PREFIX, ['Support search A', 'Support search B'], (s) => ({ a, b } = s));
jest.setTimeout(90_000);

it('a ticket is found by title, customer and company through types=support-ticket; updates and deletes follow; tenants stay apart', async () => {
  const company = (await makeCompany(a.http, { name: 'Marigold Bakery' })).body.data._id as string;
  const res = await a.http.post('/api/v1/support-tickets', {
    title: 'Oven thermostat broken',
    company,
    customerEmail: 'quentin@marigold.example',
  });
  expect(res.status).toBe(201);
  const ticket = res.body.data;
  const found = await searchUntil(
    a.http,
    'q=thermostat&types=support-ticket',
    (body) => titles(body, 'support-ticket').length === 1,
  );
  expect(found.data.results['support-ticket'].hits[0]).toMatchObject({
    _id: ticket._id,
    type: 'support-ticket',
    title: `#${ticket.ticketNumber} Oven thermostat broken`,
    subtitle: 'Marigold Bakery · open',
  });
  await searchUntil(a.http, 'q=quentin&types=support-ticket', (body) => titles(body, 'support-ticket').length === 1);
  await searchUntil(a.http, 'q=marigold&types=support-ticket', (body) => titles(body, 'support-ticket').length === 1);
  expect(
    (await b.http.get('/api/v1/search?q=thermostat&types=support-ticket')).body.data.results['support-ticket'].hits,
  ).toEqual([]);

  await a.http.put(`/api/v1/support-tickets/${ticket._id}`, { title: 'Freezer alarm', status: 'resolved' });
  await searchUntil(
    a.http,
    'q=freezer&types=support-ticket',
    (body) => body.data.results['support-ticket'].hits[0]?.subtitle === 'Marigold Bakery · resolved',
  );
  await a.http.delete(`/api/v1/support-tickets/${ticket._id}`);
  await searchUntil(a.http, 'q=freezer&types=support-ticket', (body) => titles(body, 'support-ticket').length === 0);
});
