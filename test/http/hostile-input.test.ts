// Walks every route of the registry: slower as the API grows, so a generous per-test budget.
jest.setTimeout(180_000);
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { RouteDef } from '../../platform/http/registry';
import { MAX_INPUT_DEPTH } from '../../platform/http/input-guard';
import type { Tenant, TestApp } from '../support/app';
import { withTestApp } from '../support/suites';
import { expectError } from '../support/expect';

// Walks the live route list: every route, present and future, gets the hostile inputs.

const SAMPLE_ID = '0123456789abcdef01234567';
const concretePath = (path: string): string => path.replace(/[:*][A-Za-z0-9_]+/g, SAMPLE_ID);
const label = (r: RouteDef): string => `${r.method} ${r.path}`;

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

interface Probe {
  name: string;
  query?: string;
  body?: unknown;
  path: string;
}

/** Body probes (POST/PUT/PATCH/DELETE) and query probes (every method). */
const BODY_PROBES: Probe[] = [
  { name: 'NUL in a field', body: { name: 'Acme\u0000', title: 'x' }, path: 'body.name' },
  { name: 'lone surrogate in a field', body: { name: 'x', title: '\ud800' }, path: 'body.title' },
  {
    name: 'NUL deep in an array',
    body: { nodes: [{ data: { config: { note: 'ok' } } }, { data: { label: 'a\u0000' } }] },
    path: 'body.nodes.1.data.label',
  },
  { name: 'lone surrogate in a key', body: { customFields: { ['k\udc00']: 1 } }, path: 'body.customFields."k\\udc00"' },
];
const QUERY_PROBES: Probe[] = [
  { name: 'q=%00', query: 'q=%00', path: 'query.q' },
  { name: 'search=%00', query: 'search=%00', path: 'query.search' },
  { name: 'NUL in any parameter', query: 'page=1&entityType=lead%00', path: 'query.entityType' },
];

async function runAll<T>(items: T[], fn: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
    }),
  );
}

describe('hostile characters on every route of the registry', () => {
  it('every route answers 400 { error } naming the field for NUL and lone surrogates in bodies and queries (never 500)', async () => {
    const routes = app.runtime.routes;
    expect(routes.length).toBeGreaterThan(50);
    const cases = routes.flatMap((r) => [
      ...(r.method === 'GET' ? [] : BODY_PROBES.map((p) => ({ r, p }))),
      ...QUERY_PROBES.map((p) => ({ r, p })),
    ]);
    const failures: string[] = [];
    await runAll(cases, async ({ r, p }) => {
      const path = concretePath(r.path) + (p.query ? `?${p.query}` : '');
      const res = await t.http.request(r.method, path, p.body);
      const ok =
        res.status === 400 &&
        typeof res.body?.error === 'string' &&
        res.body.error.startsWith(`${p.path}: `) &&
        res.body.code === 'validation';
      if (!ok) failures.push(`${label(r)} [${p.name}] → ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`);
    });
    expect(failures).toEqual([]);
  });

  it('a NUL in a path parameter answers like a malformed id (404), on every :param route', async () => {
    const withParams = app.runtime.routes.filter((r) => /[:*]\w+/.test(r.path));
    const failures: string[] = [];
    await runAll(withParams, async (r) => {
      const res = await t.http.request(
        r.method,
        r.path.replace(/[:*][A-Za-z0-9_]+/g, 'x%00'),
        r.method === 'GET' || r.method === 'DELETE' ? undefined : {},
      );
      if (res.status !== 404 || typeof res.body?.error !== 'string')
        failures.push(`${label(r)} → ${res.status} ${JSON.stringify(res.body)?.slice(0, 200)}`);
    });
    expect(failures).toEqual([]);
  });
});

describe('every body format, including the raw-body routes', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const text = { 'content-type': 'text/plain' };
  it.each<[string, string, string, Record<string, string>, string]>([
    [
      'JSON on POST /companies',
      'POST',
      '/api/v1/companies',
      { 'content-type': 'application/json' },
      '{"name":"A\\u0000"}',
    ],
    ['form on POST /inbound', 'POST', '/api/v1/inbound', form, 'companyName=Acme%00'],
    ['form key on POST /inbound', 'POST', '/api/v1/inbound', form, 'company%00Name=Acme'],
    ['text on POST /inbound (raw NUL)', 'POST', '/api/v1/inbound', text, 'hello\u0000'],
    ['JSON as text on POST /inbound', 'POST', '/api/v1/inbound', text, '{"companyName":"\\ud800"}'],
    [
      'JSON on POST /webhooks/connector',
      'POST',
      '/api/v1/webhooks/connector',
      { 'content-type': 'application/json' },
      '{"fields":[{"name":"email","value":"a\\u0000@b.dk"}]}',
    ],
    ['form on POST /webhooks/connector', 'POST', '/api/v1/webhooks/connector', form, 'personEmail=a%00%40b.dk'],
    [
      'JSON on the automation webhook',
      'POST',
      `/api/webhooks/automation/${SAMPLE_ID}`,
      { 'content-type': 'application/json' },
      '{"who":"\\u0000"}',
    ],
    ['form on the automation webhook', 'POST', `/api/webhooks/automation/${SAMPLE_ID}`, form, 'who=%00'],
  ])('%s → 400 { error } naming the field', async (_label, method, path, headers, raw) => {
    const res = await t.http.request(method, path, undefined, { headers, raw });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation', error: expect.stringMatching(/^body(\.|: )/) });
  });

  it('PUT /users/:id with a NUL is refused and the user is unchanged', async () => {
    const before = (await t.http.get(`/api/v1/users/${t.userId}`)).body.data;
    const res = await t.http.put(`/api/v1/users/${t.userId}`, { firstName: 'Ada\u0000', lastName: '\ud800' });
    expectError(res, 400, /^body\.firstName: contains a NUL character/);
    expect((await t.http.get(`/api/v1/users/${t.userId}`)).body.data).toEqual(before);
  });

  it('stores well-formed Unicode unchanged (accents, emoji pairs, U+FFFD, control characters)', async () => {
    const name = 'Zoë 😀 𝄞 \uFFFD\u0001 æøå';
    const created = await t.http.post('/api/v1/companies', { name });
    expect(created.status).toBe(201);
    expect((await t.http.get(`/api/v1/companies/${created.body.data._id}`)).body.data.name).toBe(name);
    // A malformed percent-escape in the query decodes to U+FFFD: storable, so it is searched, not refused.
    expect((await t.http.get('/api/v1/companies?q=%ED%A0%80')).status).toBe(200);
  });
});

describe('compressed, huge and deeply nested bodies', () => {
  const post = (body: Buffer | string, headers: Record<string, string>) =>
    fetch(`${app.baseUrl}/api/v1/companies`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json', ...headers },
      body,
    });
  const json = { name: 'Compressed Co' };

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)(
    '%s: a valid body is read; a body that is not validly compressed is a 400, never a 500',
    async (encoding, compress) => {
      const good = await post(compress(Buffer.from(JSON.stringify(json))), { 'content-encoding': encoding });
      expect(good.status).toBe(201);
      expect(((await good.json()) as any).data.name).toBe('Compressed Co');
      for (const garbage of [
        Buffer.from(JSON.stringify(json)),
        Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0]),
        compress(Buffer.from(JSON.stringify(json))).subarray(0, 8),
      ]) {
        const res = await post(garbage, { 'content-encoding': encoding });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({
          code: 'validation',
          error: expect.stringContaining(`not valid ${encoding} data`),
        });
      }
    },
  );

  it('an unsupported Content-Encoding is a 415 that names the supported ones', async () => {
    const res = await post('{}', { 'content-encoding': 'compress' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).error).toMatch(/Unsupported Content-Encoding: compress.*gzip, deflate, br/);
  });

  it('a compressed body that inflates past the size limit is a 413', async () => {
    const big = JSON.stringify({ name: 'x', description: 'a'.repeat(app.config.bodyLimitBytes) });
    const res = await post(gzipSync(Buffer.from(big)), { 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).code).toBe('too_large');
  });

  it.each([
    ['objects, 10,000 levels', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)],
    ['arrays, 10,000 levels', '{"name":"x","tags":' + '['.repeat(10_000) + ']'.repeat(10_000) + '}'],
    [
      `objects, ${MAX_INPUT_DEPTH + 1} levels`,
      '{"a":'.repeat(MAX_INPUT_DEPTH + 1) + '1' + '}'.repeat(MAX_INPUT_DEPTH + 1),
    ],
  ])('deep nesting (%s) is a 400', async (_label, raw) => {
    const res = await post(raw, {});
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toMatch(new RegExp(`is nested deeper than ${MAX_INPUT_DEPTH} levels`));
  });

  it('a body just under the nesting bound is read (and validated as usual)', async () => {
    const raw =
      '{"name":"Deep","customFields":' +
      '{"a":'.repeat(MAX_INPUT_DEPTH - 2) +
      '1' +
      '}'.repeat(MAX_INPUT_DEPTH - 2) +
      '}';
    const res = await post(raw, {});
    expect(res.status).not.toBe(500);
    expect(((await res.json()) as any).error ?? '').not.toMatch(/nested deeper/);
  });

  it('a body over the size limit is a 413', async () => {
    const res = await post(JSON.stringify({ name: 'x', description: 'a'.repeat(app.config.bodyLimitBytes) }), {});
    expect(res.status).toBe(413);
  });
});
