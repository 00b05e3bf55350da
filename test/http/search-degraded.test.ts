import { Pool } from 'pg';
import { SEARCH_TYPES } from '../../search/registry';
import { HttpClient, startTestApp, type Tenant, type TestApp } from '../support/app';
import { DEAD_MEILI_URL, searchUntil, titles, uniqueIndexPrefix, searchIndexDispatcher } from '../support/search';
import { withSearchApp } from '../support/search-suite';

// Meilisearch "stopped" = an app and a subscriber pointed at a port where nothing listens.
const PREFIX = uniqueIndexPrefix('degraded');
let app: TestApp;
let dead: TestApp;
let db: Pool;
let t: Tenant;
let other: Tenant;

jest.setTimeout(90_000);

withSearchApp(PREFIX, (a) => (app = a));
beforeAll(async () => {
  dead = await startTestApp({ MEILI_INDEX_PREFIX: PREFIX, MEILI_URL: DEAD_MEILI_URL });
  db = new Pool({ connectionString: app.config.databaseUrl, max: 2 });
  [t, other] = await Promise.all([app.tenant('Degraded'), app.tenant('Degraded other')]);
});

afterAll(async () => {
  await db?.end();
  await dead?.close();
});

async function waitForNoParked(entityId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { rows } = await db.query(`select 1 from outbox_delivery where entity_id = $1`, [entityId]);
    if (!rows.length) return;
    if (Date.now() > deadline) throw new Error('the parked search-index delivery is still there');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const deadHttp = (tenant: Tenant): HttpClient => new HttpClient(dead.baseUrl, tenant.apiKey);

describe('GET /api/v1/search with Meilisearch down', () => {
  beforeAll(async () => {
    const companyId = (
      await t.http.post('/api/v1/companies', {
        name: 'Obsidian Freight',
        email: 'hello@obsidian-freight.example',
        city: 'Odense',
      })
    ).body.data._id;
    await t.http.post('/api/v1/people', {
      firstName: 'Maren',
      lastName: 'Obsidiansen',
      companyId,
      emails: [{ email: 'maren@obsidian-freight.example' }],
    });
    await t.http.post('/api/v1/people', { firstName: 'Kai', lastName: 'Lund', title: 'Buyer', companyId });
    await other.http.post('/api/v1/companies', { name: 'Obsidian Other' });
  });

  it('answers from Postgres with degraded: true, in the same shape', async () => {
    const res = await deadHttp(t).get('/api/v1/search?q=obsidian');
    expect(res.status).toBe(200);
    expect(res.body.data.degraded).toBe(true);
    expect(res.body.data.query).toBe('obsidian');
    expect(Object.keys(res.body.data.results)).toEqual([...SEARCH_TYPES]);
    expect(res.body.data.results.company).toEqual({
      hits: [
        {
          _id: expect.any(String),
          type: 'company',
          title: 'Obsidian Freight',
          subtitle: 'Odense · hello@obsidian-freight.example',
          snippet: '<mark>Obsidian</mark> Freight',
        },
      ],
      total: 1,
    });
    // Name, e-mail and the company name of people all match case-insensitively.
    expect(titles(res.body, 'person').sort()).toEqual(['Kai Lund', 'Maren Obsidiansen']);
    const kai = res.body.data.results.person.hits.find((h: { title: string }) => h.title === 'Kai Lund');
    expect(kai).toMatchObject({ subtitle: 'Buyer · Obsidian Freight', snippet: '<mark>Obsidian</mark> Freight' });
  });

  it('applies types, limit and the full-name match in degraded mode too', async () => {
    const res = await deadHttp(t).get('/api/v1/search?q=MAREN%20obsid&types=person&limit=1');
    expect(res.body.data).toMatchObject({
      degraded: true,
      results: {
        person: { total: 1, hits: [{ title: 'Maren Obsidiansen', snippet: '<mark>Maren Obsid</mark>iansen' }] },
      },
    });
    expect(Object.keys(res.body.data.results)).toEqual(['person']);
    const limited = await deadHttp(t).get('/api/v1/search?q=obsidian&types=person&limit=1');
    expect(limited.body.data.results.person.hits).toHaveLength(1);
    expect(limited.body.data.results.person.total).toBe(2);
  });

  it('treats % and _ in q literally', async () => {
    const res = await deadHttp(t).get('/api/v1/search?q=%25%25&types=company');
    expect(res.body.data.results.company).toEqual({ hits: [], total: 0 });
  });

  it('the input rules still apply', async () => {
    expect((await deadHttp(t).get('/api/v1/search?q=o')).status).toBe(400);
    expect((await deadHttp(t).get('/api/v1/search?q=ob&limit=51')).status).toBe(400);
  });
});

describe('indexing while Meilisearch is down', () => {
  it('the write succeeds, the search-index delivery is parked and retried, and the document appears once Meilisearch is back', async () => {
    const ws = await app.tenant('Recovery');
    const res = await ws.http.post('/api/v1/companies', { name: 'Phoenix Recovered' });
    expect(res.status).toBe(201);

    const down = searchIndexDispatcher(app, [ws.workspaceId], {
      config: { ...app.config, meiliUrl: DEAD_MEILI_URL },
      backoffMs: 300,
    });
    const first = await down.drainOnce();
    await down.stop();
    expect(first).toMatchObject({ claimed: 1, processed: 0, failed: 1, parked: 1 });
    const eventRow = `select e.processed_at, e.last_error, e.delivered_to, d.status, d.attempts from outbox_event e
      left join outbox_delivery d on d.event_id = e.event_id and d.subscriber = 'search-index'
      where e.entity_id = $1 and e.type = 'company_created'`;
    const { rows } = await db.query(eventRow, [res.body.data._id]);
    // Done for every other subscriber; the search-index delivery waits in outbox_delivery.
    expect(rows[0]).toMatchObject({ status: 'pending', delivered_to: expect.not.arrayContaining(['search-index']) });
    expect(rows[0].processed_at).not.toBeNull();
    expect(rows[0].attempts).toBeGreaterThanOrEqual(1);
    expect(rows[0].last_error).toMatch(/search-index: /);

    // The API still answers, from Postgres.
    expect((await deadHttp(ws).get('/api/v1/search?q=phoenix')).body.data).toMatchObject({
      degraded: true,
      results: { company: { total: 1 } },
    });

    // Meilisearch "restarted": a dispatcher reaching it picks the event up once its backoff passed.
    const back = searchIndexDispatcher(app, [ws.workspaceId], { pollIntervalMs: 100 });
    await back.start();
    try {
      const found = await searchUntil(ws.http, 'q=phoenix', (body) =>
        titles(body, 'company').includes('Phoenix Recovered'),
      );
      expect(found.data.degraded).toBeUndefined();
      await waitForNoParked(res.body.data._id);
    } finally {
      await back.stop();
    }
  });
});
