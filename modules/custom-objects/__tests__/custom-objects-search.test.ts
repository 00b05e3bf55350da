import { equals } from '../../../search/meili';
import { reindex } from '../../../search/reindex';
import { HttpClient, type Tenant, type TestApp } from '../../../test/support/app';
import { testMeili, uniqueIndexPrefix } from '../../../test/support/search';
import { withSearchIndexing } from '../../../test/support/search-suite';
import { expectOk } from '../../../test/support/expect';

// Records written through the API reach Meilisearch through the outbox (a dispatcher limited to this
// file's workspaces, under a per-run index prefix).
const PREFIX = uniqueIndexPrefix('cosearch');
const INDEX = `${PREFIX}custom_object_record`;
const meili = testMeili();
const base = '/api/v1/custom-objects';
let app: TestApp;
let dead: TestApp;
let a: Tenant;
let b: Tenant;

withSearchIndexing(PREFIX, ['CO Search A', 'CO Search B'], (s) => ({ app, dead, a, b } = s), { dead: true });

jest.setTimeout(90_000);

async function searchUntil(
  http: HttpClient,
  q: string,
  check: (data: any) => boolean,
  timeoutMs = 30_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await http.get(`${base}/search?q=${encodeURIComponent(q)}`);
    if (res.status === 200 && !res.body.data.degraded && check(res.body.data)) return res.body.data;
    if (Date.now() > deadline) throw new Error(`search ${q}: last answer ${res.status} ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function indexedDocs(filter: string): Promise<Record<string, unknown>[]> {
  await meili.tasks.waitForTasks(
    (await meili.tasks.getTasks({ indexUids: [INDEX], statuses: ['enqueued', 'processing'] })).results.map(
      (t) => t.uid,
    ),
    { timeout: 60_000 },
  );
  try {
    return (await meili.index(INDEX).getDocuments({ filter, limit: 1000 })).results as Record<string, unknown>[];
  } catch {
    return [];
  }
}

async function setup(t: Tenant, slug: string) {
  expect((await t.http.post(base, { slug, singular: 'Vault item', plural: 'Vault items' })).status).toBe(201);
  for (const f of [
    { slug: 'name', label: 'Name', type: 'text' },
    { slug: 'secret', label: 'Secret', type: 'text' },
    { slug: 'mail', label: 'Mail', type: 'email' },
    { slug: 'qty', label: 'Qty', type: 'number' },
  ]) {
    expect((await t.http.post(`${base}/${slug}/fields`, f)).status).toBe(201);
  }
  expect((await t.http.patch(`${base}/${slug}`, { titleField: 'name', piiFields: ['secret'] })).status).toBe(200);
}

const titles = (data: any): string[] => data.hits.map((h: { title: string }) => h.title);

describe('GET /api/v1/custom-objects/search', () => {
  it('finds records by their searchable fields; PII fields are never indexed; other workspaces stay apart', async () => {
    await setup(a, 'vault');
    await setup(b, 'vault');
    const rec = await a.http.post(`${base}/vault/records`, {
      name: 'Quasarlight Drill',
      secret: 'Vorpalsecret',
      mail: 'ops@nebulous.example',
      qty: 7,
    });
    expect(rec.status).toBe(201);
    const other = await b.http.post(`${base}/vault/records`, { name: 'Quasarlight Hammer' });
    expect(other.status).toBe(201);

    const found = await searchUntil(a.http, 'quasarlight', (d) => d.hits.length === 1);
    expect(found).toEqual({
      query: 'quasarlight',
      total: 1,
      hits: [
        {
          _id: rec.body.data._id,
          object: 'vault',
          objectLabel: 'Vault item',
          recordNumber: 1,
          title: 'Quasarlight Drill',
          snippet: '<mark>Quasarlight</mark> Drill',
        },
      ],
    });
    expect(titles(await searchUntil(b.http, 'quasarlight', (d) => d.hits.length === 1))).toEqual([
      'Quasarlight Hammer',
    ]);
    expect((await searchUntil(a.http, 'nebulous', (d) => d.hits.length === 1)).hits[0].snippet).toBe(
      'ops@<mark>nebulous</mark>.example',
    );

    // The PII value is in no indexed document, and searching it finds nothing.
    const docs = await indexedDocs(equals('workspaceId', a.workspaceId));
    expect(docs).toHaveLength(1);
    expect(JSON.stringify(docs)).not.toContain('Vorpalsecret');
    expect((await searchUntil(a.http, 'vorpalsecret', () => true)).hits).toEqual([]);

    // `search reindex` covers the type, with the same documents (still no PII).
    const [rebuilt] = await reindex({
      em: app.runtime.deps.orm.em,
      client: meili,
      prefix: PREFIX,
      types: ['custom_object_record'],
      workspaceId: a.workspaceId,
    });
    expect(rebuilt).toMatchObject({ type: 'custom_object_record', index: INDEX, mode: 'workspace', documents: 1 });
    const again = await indexedDocs(equals('workspaceId', a.workspaceId));
    expect(again).toHaveLength(1);
    expect(JSON.stringify(again)).not.toContain('Vorpalsecret');
  });

  it('follows record updates and deletes, and definition changes (PII, searchable, field and object deletion)', async () => {
    expect((await a.http.post(base, { slug: 'gear', singular: 'Gear', plural: 'Gear' })).status).toBe(201);
    for (const f of [
      { slug: 'label', label: 'Label', type: 'text' },
      { slug: 'note', label: 'Note', type: 'text' },
    ])
      expect((await a.http.post(`${base}/gear/fields`, f)).status).toBe(201);
    const id = (await a.http.post(`${base}/gear/records`, { label: 'Marmalade Crate', note: 'Xylophonic' })).body.data
      ._id;
    await searchUntil(a.http, 'xylophonic', (d) => d.hits.length === 1);
    // No titleField: the title is "<singular> #<n>".
    expect((await searchUntil(a.http, 'marmalade', (d) => d.hits.length === 1)).hits[0]).toMatchObject({
      _id: id,
      object: 'gear',
      title: 'Gear #1',
    });

    expect((await a.http.patch(`${base}/gear/records/${id}`, { label: 'Tangerine Crate' })).status).toBe(200);
    await searchUntil(a.http, 'tangerine', (d) => d.hits.length === 1);
    await searchUntil(a.http, 'marmalade', (d) => d.hits.length === 0);

    // The note becomes PII: the record is re-indexed without it.
    expect((await a.http.patch(`${base}/gear`, { piiFields: ['note'] })).status).toBe(200);
    await searchUntil(a.http, 'xylophonic', (d) => d.hits.length === 0);
    expect(JSON.stringify(await indexedDocs(equals('id', id)))).not.toContain('Xylophonic');
    // searchableFields narrows what is indexed.
    expect((await a.http.patch(`${base}/gear`, { piiFields: [], searchableFields: ['note'] })).status).toBe(200);
    await searchUntil(a.http, 'xylophonic', (d) => d.hits.length === 1);
    await searchUntil(a.http, 'tangerine', (d) => d.hits.length === 0);
    // A deleted field's values leave the index.
    expect((await a.http.delete(`${base}/gear/fields/note`)).status).toBe(200);
    await searchUntil(a.http, 'xylophonic', (d) => d.hits.length === 0);

    // Not searchable: left out at once.
    expect((await a.http.patch(`${base}/gear`, { searchable: false })).status).toBe(200);
    expect((await searchUntil(a.http, 'tangerine', () => true)).hits).toEqual([]);
    expect((await a.http.patch(`${base}/gear`, { searchable: true })).status).toBe(200);
    await searchUntil(a.http, 'tangerine', (d) => d.hits.length === 1);

    expect((await a.http.delete(`${base}/gear/records/${id}`)).status).toBe(200);
    await searchUntil(a.http, 'tangerine', (d) => d.hits.length === 0);

    const again = (await a.http.post(`${base}/gear/records`, { label: 'Periwinkle Crate' })).body.data;
    await searchUntil(a.http, 'periwinkle', (d) => d.hits.length === 1);
    expect((await a.http.delete(`${base}/gear`)).status).toBe(200);
    // The object's documents are purged from the index.
    const deadline = Date.now() + 30_000;
    while ((await indexedDocs(equals('id', again._id))).length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect(await indexedDocs(equals('id', again._id))).toEqual([]);
  });

  it('answers from Postgres with degraded: true when Meilisearch is down (PII still not matched)', async () => {
    const http = new HttpClient(dead.baseUrl, a.apiKey);
    const res = await http.get(`${base}/search?q=quasarlight`);
    expectOk(res, {
      degraded: true,
      total: 1,
      hits: [
        { object: 'vault', title: 'Quasarlight Drill', recordNumber: 1, snippet: '<mark>Quasarlight</mark> Drill' },
      ],
    });
    expect((await http.get(`${base}/search?q=vorpalsecret`)).body.data).toMatchObject({
      degraded: true,
      total: 0,
      hits: [],
    });
    const other = await new HttpClient(dead.baseUrl, b.apiKey).get(`${base}/search?q=quasarlight`);
    expect(other.body.data.hits.map((h: { title: string }) => h.title)).toEqual(['Quasarlight Hammer']);
  });

  it('validates q and limit at their boundaries', async () => {
    for (const query of [
      '',
      'q=a',
      'q=%20a%20',
      `q=${'x'.repeat(201)}`,
      'q=ab&limit=51',
      'q=ab&limit=0',
      'q=ab&limit=x',
    ]) {
      expect([query, (await a.http.get(`${base}/search?${query}`)).status]).toEqual([query, 400]);
    }
    expect((await a.http.get(`${base}/search?q=ab&limit=50`)).status).toBe(200);
    expect((await a.http.get(`${base}/search?q=${'x'.repeat(200)}`)).status).toBe(200);
  });
});
