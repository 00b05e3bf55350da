/**
 * Right after a Meilisearch outage the index answers again before it has caught up with the
 * writes made meanwhile: search must say `degraded: true` (answering from Postgres) until it has.
 */
import type { TestApp } from '../support/app';
import {
  DEAD_MEILI_URL,
  searchUntil,
  testMeili,
  titles,
  uniqueIndexPrefix,
  searchIndexDispatcher,
} from '../support/search';
import { withSearchApp } from '../support/search-suite';

const PREFIX = uniqueIndexPrefix('catchup');
const meili = testMeili();
let app: TestApp;

jest.setTimeout(90_000);
withSearchApp(PREFIX, (a) => (app = a));

describe('search after Meilisearch comes back', () => {
  it('answers degraded (from Postgres, complete) until the backlog is indexed, then from Meilisearch again', async () => {
    const ws = await app.tenant('Catch up');
    const bystander = await app.tenant('Catch up bystander');
    const live = searchIndexDispatcher(app, [ws.workspaceId, bystander.workspaceId], { pollIntervalMs: 100 });
    await live.start();
    try {
      await ws.http.post('/api/v1/companies', { name: 'Alpha Quartz' });
      await bystander.http.post('/api/v1/companies', { name: 'Bystander Quartz' });
      await searchUntil(ws.http, 'q=quartz', (body) => titles(body, 'company').includes('Alpha Quartz'));
      await searchUntil(bystander.http, 'q=quartz', (body) => titles(body, 'company').includes('Bystander Quartz'));
    } finally {
      await live.stop();
    }

    // Meilisearch down: a write's search event fails and is parked for its retry (outbox_delivery).
    const bravo = await ws.http.post('/api/v1/companies', { name: 'Bravo Quartz' });
    expect(bravo.status).toBe(201);
    const down = searchIndexDispatcher(app, [ws.workspaceId], {
      config: { ...app.config, meiliUrl: DEAD_MEILI_URL },
      backoffMs: 300,
    });
    expect(await down.drainOnce()).toMatchObject({ claimed: 1, processed: 0, failed: 1, parked: 1 });
    await down.stop();

    // Meilisearch is back (the app reaches it) but the event is not indexed yet, past the 2 s grace.
    await new Promise((r) => setTimeout(r, 2300));
    const meiliOnly = await meili
      .index(`${PREFIX}company`)
      .search('quartz', { filter: `workspaceId = "${ws.workspaceId}"` });
    expect(meiliOnly.hits.map((h) => h.title)).toEqual(['Alpha Quartz']); // what a non-degraded answer would have shown
    const behind = await ws.http.get('/api/v1/search?q=quartz&types=company');
    expect(behind.status).toBe(200);
    expect(behind.body.data.degraded).toBe(true);
    expect(titles(behind.body, 'company').sort()).toEqual(['Alpha Quartz', 'Bravo Quartz']);
    // Another workspace with nothing pending is answered by Meilisearch as usual.
    const other = await bystander.http.get('/api/v1/search?q=quartz&types=company');
    expect(other.body.data.degraded).toBeUndefined();
    expect(titles(other.body, 'company')).toEqual(['Bystander Quartz']);

    // The dispatcher delivers the backlog: answers come from Meilisearch again, complete.
    const back = searchIndexDispatcher(app, [ws.workspaceId], { pollIntervalMs: 100 });
    await back.start();
    try {
      const caughtUp = await searchUntil(
        ws.http,
        'q=quartz&types=company',
        (body) => titles(body, 'company').length === 2,
      );
      expect(caughtUp.data.degraded).toBeUndefined();
      expect(titles(caughtUp, 'company').sort()).toEqual(['Alpha Quartz', 'Bravo Quartz']);
    } finally {
      await back.stop();
    }
  });
});
