import { SEARCH_TYPES } from '../../search/registry';
import { HttpClient, type Tenant, type TestApp } from '../support/app';
import { searchUntil, titles, uniqueIndexPrefix, searchIndexDispatcher } from '../support/search';
import { withSearchIndexing } from '../support/search-suite';
import { expectError } from '../support/expect';

// Writes go through the API; a dispatcher running buildSubscribers (limited to this file's
// workspaces) carries them to Meilisearch under a per-run index prefix.
const PREFIX = uniqueIndexPrefix('search');
let app: TestApp;
let dead: TestApp;
let a: Tenant;
let b: Tenant;

withSearchIndexing(PREFIX, ['Search A', 'Search B'], (s) => ({ app, dead, a, b } = s), { dead: true });

// Meilisearch on a busy shared machine can take seconds per write: poll generously.
jest.setTimeout(90_000);

const q = (text: string, extra = ''): string => `q=${encodeURIComponent(text)}${extra}`;
const post = async (t: Tenant, path: string, body: Record<string, unknown>): Promise<string> => {
  const res = await t.http.post(path, body);
  expect(res.status).toBe(201);
  return res.body.data._id as string;
};
/** A's search for `text` (and `extra`) once its `type` results include `title`. */
const searchUntilTitled = (text: string, type: string, title: string, extra = '') =>
  searchUntil(a.http, q(text, extra), (body) => titles(body, type).includes(title));

describe('GET /api/v1/search: freshness through the outbox', () => {
  it('a created company becomes searchable; an update replaces its title; a delete removes it', async () => {
    const id = await post(a, '/api/v1/companies', { name: 'Zephyrine Robotics', city: 'Aarhus' });
    const found = await searchUntilTitled('zephyrine', 'company', 'Zephyrine Robotics');
    expect(found.data.results.company.hits[0]).toEqual({
      _id: id,
      type: 'company',
      title: 'Zephyrine Robotics',
      subtitle: 'Aarhus',
      snippet: '<mark>Zephyrine</mark> Robotics',
    });
    expect(found.data.degraded).toBeUndefined();

    expect((await a.http.put(`/api/v1/companies/${id}`, { name: 'Quillfeather Robotics' })).status).toBe(200);
    await searchUntilTitled('quillfeather', 'company', 'Quillfeather Robotics');
    const old = await searchUntil(a.http, q('zephyrine'));
    expect(old.data.results.company).toEqual({ hits: [], total: 0 });

    expect((await a.http.delete(`/api/v1/companies/${id}`)).status).toBe(200);
    await searchUntil(a.http, q('quillfeather'), (body) => body.data.results.company.total === 0);
  });

  it('renaming a company updates the company name on its people and deals; deleting it clears them', async () => {
    const companyId = await post(a, '/api/v1/companies', { name: 'Heliotrope Labs' });
    await post(a, '/api/v1/people', { firstName: 'Ingrid', lastName: 'Solberg', title: 'CTO', companyId });
    await post(a, '/api/v1/deals', { title: 'Ingrid pilot', company: companyId });
    const ingridAndPilot = (body: unknown) =>
      titles(body, 'person').includes('Ingrid Solberg') && titles(body, 'deal').includes('Ingrid pilot');
    await searchUntil(a.http, q('heliotrope', '&types=person,deal'), ingridAndPilot);

    await a.http.put(`/api/v1/companies/${companyId}`, { name: 'Marigold Labs' });
    const renamed = await searchUntil(a.http, q('marigold', '&types=person,deal'), ingridAndPilot);
    expect(renamed.data.results.person.hits[0]).toMatchObject({
      subtitle: 'CTO · Marigold Labs',
      snippet: '<mark>Marigold</mark> Labs',
    });
    expect((await searchUntil(a.http, q('heliotrope', '&types=person,deal'))).data.results).toEqual({
      person: { hits: [], total: 0 },
      deal: { hits: [], total: 0 },
    });

    // The delete unlinks people and deals in Postgres without events of their own.
    await a.http.delete(`/api/v1/companies/${companyId}`);
    await searchUntil(
      a.http,
      q('marigold', '&types=person,deal'),
      (body) => body.data.results.person.total === 0 && body.data.results.deal.total === 0,
    );
    const ingrid = await searchUntil(a.http, q('ingrid solberg', '&types=person'));
    expect(ingrid.data.results.person.hits).toEqual([
      expect.objectContaining({ title: 'Ingrid Solberg', subtitle: 'CTO' }),
    ]);
  });

  it('projects are searchable by title and company name; a delete removes them', async () => {
    const companyId = await post(a, '/api/v1/companies', { name: 'Brambleworth Foods' });
    const id = await post(a, '/api/v1/projects', { title: 'Orchard portal', company: companyId });
    const found = await searchUntilTitled('brambleworth', 'project', 'Orchard portal', '&types=project');
    expect(found.data.results.project.hits[0]).toMatchObject({
      _id: id,
      type: 'project',
      title: 'Orchard portal',
      subtitle: 'Brambleworth Foods · active',
    });
    expect((await a.http.delete(`/api/v1/projects/${id}`)).status).toBe(200);
    await searchUntil(a.http, q('orchard', '&types=project'), (body) => body.data.results.project.total === 0);
  });
});

describe('GET /api/v1/search: matching', () => {
  beforeAll(async () => {
    await post(a, '/api/v1/companies', {
      name: 'Acme Widgets',
      email: 'sales@acmewidgets.example',
      tags: ['fish & "chips"'],
    });
    await post(a, '/api/v1/people', {
      firstName: 'Torvald',
      lastName: 'Brekke',
      emails: [{ email: 'torvald.brekke@fjordline.example' }],
    });
    await searchUntil(
      a.http,
      q('torvald'),
      (body) => titles(body, 'person').length === 1 && body.data.results.company.total >= 0,
    );
    await searchUntilTitled('acme widgets', 'company', 'Acme Widgets');
  });

  it.each([
    ['a typo', 'acmr', 'company', 'Acme Widgets'],
    ['a prefix', 'widg', 'company', 'Acme Widgets'],
    ['a typo and a prefix', 'acne widg', 'company', 'Acme Widgets'],
    ['an e-mail fragment', 'fjordline', 'person', 'Torvald Brekke'],
    ['a full name', 'torvald brekke', 'person', 'Torvald Brekke'],
  ])('finds with %s (%s)', async (_case, text, type, title) => {
    expect(titles(await searchUntil(a.http, q(text)), type)).toContain(title);
  });

  it('snippets are escaped HTML with the match in <mark>', async () => {
    const mail = await searchUntil(a.http, q('fjordline', '&types=person'));
    expect(mail.data.results.person.hits[0].snippet).toBe('torvald.brekke@<mark>fjordline</mark>.example');
    const tag = await searchUntil(a.http, q('chips', '&types=company'));
    expect(tag.data.results.company.hits[0].snippet).toBe('fish &amp; &quot;<mark>chips</mark>&quot;');
  });

  it('answers every searchable type by default, and only the requested ones with types=', async () => {
    const all = await searchUntil(a.http, q('acme'));
    expect(Object.keys(all.data.results)).toEqual([...SEARCH_TYPES]);
    expect(all.data.query).toBe('acme');
    const some = await searchUntil(a.http, q('acme', '&types=person, company,person'));
    expect(Object.keys(some.data.results)).toEqual(['person', 'company']);
  });
});

describe('GET /api/v1/search: input rules', () => {
  it.each([
    ['q missing', '', /q: is required/],
    ['q of 1 character', q('a'), /q: must be at least 2 characters/],
    ['q of 1 character after trimming', q('  a  '), /q: must be at least 2 characters/],
    ['q of 201 characters', q('x'.repeat(201)), /q: must be at most 200 characters/],
    ['an unknown type', q('acme', '&types=company,spaceship'), /unknown type "spaceship"/],
    ['limit 51', q('acme', '&limit=51'), /limit must be at most 50/],
    ['limit 0', q('acme', '&limit=0'), /limit must be at least 1/],
    ['limit not a number', q('acme', '&limit=ten'), /limit must be a number/],
  ])('400 for %s', async (_case, query, message) => {
    expectError(await a.http.get(`/api/v1/search?${query}`), 400, message);
  });

  it.each([
    ['2 characters', q('ac')],
    ['200 characters', q('x'.repeat(200))],
    ['limit 50', q('acme', '&limit=50')],
  ])('200 for %s', async (_case, query) => {
    expect((await a.http.get(`/api/v1/search?${query}`)).status).toBe(200);
  });

  it('limit: default 10, at most 50 hits per type, total counts all matches', async () => {
    const t = await app.tenant('Search limits');
    const d = searchIndexDispatcher(app, [t.workspaceId], { pollIntervalMs: 100 });
    await d.start();
    try {
      for (let i = 0; i < 51; i += 17)
        await Promise.all(
          Array.from({ length: 17 }, (_, j) => post(t, '/api/v1/companies', { name: `Limitless ${i + j}` })),
        );
      await searchUntil(t.http, q('limitless', '&types=company'), (body) => body.data.results.company.total === 51);
      expect((await searchUntil(t.http, q('limitless', '&types=company'))).data.results.company.hits).toHaveLength(10);
      const max = await searchUntil(t.http, q('limitless', '&types=company&limit=50'));
      expect(max.data.results.company.hits).toHaveLength(50);
      expect(max.data.results.company.total).toBe(51);
    } finally {
      await d.stop();
    }
  });

  it('needs the read scope', async () => {
    const writer = await app.key(a.workspaceId, ['write']);
    expect((await writer.get(`/api/v1/search?${q('acme')}`)).status).toBe(403);
  });
});

describe('GET /api/v1/search: isolation between workspaces', () => {
  beforeAll(async () => {
    await post(a, '/api/v1/companies', { name: 'Quasar Dynamics' });
    await post(b, '/api/v1/companies', { name: 'Quasar Holdings' });
    await post(b, '/api/v1/people', { firstName: 'Secret', lastName: 'Quasarsen' });
    await searchUntil(
      b.http,
      q('quasar'),
      (body) => titles(body, 'company').includes('Quasar Holdings') && titles(body, 'person').length === 1,
    );
    await searchUntilTitled('quasar', 'company', 'Quasar Dynamics');
  });

  const crafted = (): string[] => [
    'quasar',
    `x" OR workspaceId = "${b.workspaceId}`,
    `quasar" OR workspaceId = "${b.workspaceId}" OR title = "x`,
    `workspaceId = ${b.workspaceId}`,
    `quasar\\" OR workspaceId != "x`,
  ];

  it("never returns another workspace's records, whatever q looks like", async () => {
    for (const text of crafted()) {
      // The same key against the app whose Meilisearch is down: the Postgres answer is isolated too.
      for (const http of [a.http, new HttpClient(dead.baseUrl, a.apiKey)]) {
        const res = await http.get(`/api/v1/search?${q(text)}`);
        expect(res.status).toBe(200);
        const all = Object.values(res.body.data.results).flatMap((r: any) => r.hits.map((h: any) => h.title));
        expect(all).not.toContain('Quasar Holdings');
        expect(all).not.toContain('Secret Quasarsen');
      }
    }
    expect(titles(await searchUntil(a.http, q('quasar')), 'company')).toEqual(['Quasar Dynamics']);
  });
});
