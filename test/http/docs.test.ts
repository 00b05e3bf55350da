import { startTestApp, type TestApp } from '../support/app';
import { expectError } from '../support/expect';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const key = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;
const registered = (): string[] => app.runtime.routes.map((r) => key(r.method, r.path)).sort();
const sectionNames = (): string[] => [...new Set(app.runtime.routes.map((r) => r.section))];
const toOpenApi = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('GET /api/v1/docs', () => {
  it('answers without a credential with the index: conventions and every section with its route count', async () => {
    const res = await app.anonymous.get('/api/v1/docs');
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data).toMatchObject({ version: '1.0', basePath: '/api/v1' });
    expect(typeof data.title).toBe('string');
    expect(data.authentication.schemes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'bearer' }),
        expect.objectContaining({ type: 'apiKey', in: 'query', name: 'api_key' }),
      ]),
    );
    expect(data.conventions.pagination.limit).toMatchObject({ default: 20, max: 100 });
    expect(data.conventions.pagination.maxLimitByResource).toEqual({
      companies: 500,
      people: 500,
      leads: 500,
      tags: 500,
      'lead-scoring/rules': 200,
      'lead-routing/rules': 100,
    });
    expect(data.conventions.input.characters).toMatch(/NUL \(U\+0000\).*lone UTF-16 surrogates.*400/);
    expect(data.conventions.input.compression).toMatch(/gzip, deflate or br.*400.*415/);
    expect(data.conventions.rateLimits).toMatchObject({
      perMinute: app.config.rateLimitPerMinute,
      perDay: app.config.rateLimitPerDay,
    });
    expect(data.conventions.rateLimits.headers).toEqual([
      'X-RateLimit-Limit-Minute',
      'X-RateLimit-Remaining-Minute',
      'X-RateLimit-Limit-Day',
      'X-RateLimit-Remaining-Day',
    ]);
    expect(data.conventions.errors.map((e: { status: number }) => e.status)).toEqual(
      expect.arrayContaining([400, 401, 403, 404, 405, 409, 413, 429, 500]),
    );
    expect(data.conventions.preview.response).toMatch(/current, proposed, diff/);
    expect(data.conventions.ids.pattern).toBe('^[0-9a-f]{24}$');
    expect(data.sections.map((s: { name: string }) => s.name)).toEqual(sectionNames());
    const total = data.sections.reduce((n: number, s: { routes: number }) => n + s.routes, 0);
    expect(total).toBe(app.runtime.routes.length);
  });

  it('full=true documents every registered route (and nothing else)', async () => {
    const res = await app.anonymous.get('/api/v1/docs?full=true');
    expect(res.status).toBe(200);
    const documented: string[] = res.body.data.sections.flatMap(
      (s: { endpoints: { method: string; path: string }[] }) => s.endpoints.map((e) => key(e.method, e.path)),
    );
    expect(documented.sort()).toEqual(registered());
    for (const section of res.body.data.sections) {
      for (const e of section.endpoints) {
        expect(typeof e.summary).toBe('string');
        expect(typeof e.successStatus).toBe('number');
        expect(typeof e.previewable).toBe('boolean');
        expect(e.auth.public ? typeof e.auth.reason : Array.isArray(e.auth.scopes)).toBe(
          e.auth.public ? 'string' : true,
        );
      }
    }
  });

  it('index=true lists every section with method, path and summary only', async () => {
    const res = await app.anonymous.get('/api/v1/docs?index=true');
    expect(res.status).toBe(200);
    const listed = res.body.data.sections.flatMap((s: { endpoints: object[] }) => s.endpoints);
    expect(listed.map((e: { method: string; path: string }) => key(e.method, e.path)).sort()).toEqual(registered());
    for (const e of listed) expect(Object.keys(e).sort()).toEqual(['method', 'path', 'summary']);
  });

  it('documents itself as public', async () => {
    const res = await app.anonymous.get('/api/v1/docs?section=docs');
    expect(res.status).toBe(200);
    expect(res.body.data.section).toBe('Docs');
    const paths = res.body.data.endpoints.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['/api/v1/docs', '/api/v1/docs/markdown']));
    for (const e of res.body.data.endpoints) expect(e.auth).toMatchObject({ public: true });
    const docs = res.body.data.endpoints.find((e: { path: string }) => e.path === '/api/v1/docs');
    expect(Object.keys(docs.query.properties)).toEqual(
      expect.arrayContaining(['section', 'subsection', 'type', 'index', 'full']),
    );
  });

  it('section=<name> (any case) returns exactly that section, in full', async () => {
    for (const name of sectionNames()) {
      const res = await app.anonymous.get(`/api/v1/docs?section=${encodeURIComponent(name.toUpperCase())}`);
      expect(res.status).toBe(200);
      expect(res.body.data.section).toBe(name);
      const expected = app.runtime.routes
        .filter((r) => r.section === name)
        .map((r) => key(r.method, r.path))
        .sort();
      expect(
        res.body.data.endpoints.map((e: { method: string; path: string }) => key(e.method, e.path)).sort(),
      ).toEqual(expected);
      for (const e of res.body.data.endpoints) {
        expect(e).toHaveProperty('params');
        expect(e).toHaveProperty('query');
        expect(e).toHaveProperty('body');
        if (/:[A-Za-z]/.test(e.path)) expect(e.params.type).toBe('object');
      }
    }
  });

  it('body schemas come from the zod schemas that validate requests', async () => {
    const withBody = app.runtime.routes.find((r) => r.body && !r.rawBody);
    if (!withBody) return;
    const res = await app.anonymous.get(`/api/v1/docs?section=${encodeURIComponent(withBody.section)}`);
    const doc = res.body.data.endpoints.find(
      (e: { method: string; path: string }) => e.method === withBody.method && e.path === withBody.path,
    );
    expect(doc.body).toEqual(expect.objectContaining({ type: expect.anything() }));
  });

  it('subsection narrows a section by path fragment', async () => {
    const res = await app.anonymous.get('/api/v1/docs?section=Docs&subsection=docs/markdown');
    expect(res.status).toBe(200);
    expect(res.body.data.endpoints.map((e: { path: string }) => e.path)).toEqual(['/api/v1/docs/markdown']);
    expectError(await app.anonymous.get('/api/v1/docs?section=Docs&subsection=no-such-thing'), 404);
  });

  it('unknown section is 404 with { error } naming the valid sections', async () => {
    const res = await app.anonymous.get('/api/v1/docs?section=no-such-section');
    expectError(res, 404);
    for (const name of sectionNames()) expect(res.body.error).toContain(name);
  });

  it.each([
    ['type=xml', /type/],
    ['index=yes', /index/],
    ['full=1', /full/],
    ['section=', /section/],
    ['subsection=docs', /subsection needs section/],
    ['index=true&full=true', /exclude/],
    ['index=true&type=openapi', /index/],
    ['sectoin=Docs', /sectoin/],
  ])('bad parameters are 400: %s', async (qs, message) => {
    expectError(await app.anonymous.get(`/api/v1/docs?${qs}`), 400, message);
  });

  it('type=markdown of a section answers Markdown', async () => {
    const res = await app.anonymous.get('/api/v1/docs?section=Docs&type=markdown');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.body).toContain('## Docs');
    expect(res.body).toContain('GET /api/v1/docs/markdown');
  });
});

describe('GET /api/v1/docs?type=openapi', () => {
  it('is an OpenAPI 3.1 document with an operation for every registered route', async () => {
    const res = await app.anonymous.get('/api/v1/docs?type=openapi');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ version: '1.0' });
    expect(typeof doc.info.title).toBe('string');
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.components.securitySchemes.apiKey).toEqual(
      expect.objectContaining({ type: 'apiKey', in: 'query', name: 'api_key' }),
    );
    expect(doc.components.schemas.Error.required).toEqual(['error']);
    expect(doc.tags.map((t: { name: string }) => t.name)).toEqual(sectionNames());

    const operations: string[] = [];
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      expect(path.startsWith('/')).toBe(true);
      expect(path).not.toMatch(/:[A-Za-z]/);
      for (const [method, op] of Object.entries<any>(item)) {
        operations.push(key(method, path));
        expect(operationIds.has(op.operationId)).toBe(false);
        operationIds.add(op.operationId);
        expect(op.tags).toHaveLength(1);
        expect(sectionNames()).toContain(op.tags[0]);
        expect(Object.keys(op.responses).length).toBeGreaterThan(1);
        expect(Array.isArray(op.security)).toBe(true);
        const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
        const declared = op.parameters
          .filter((p: { in: string }) => p.in === 'path')
          .map((p: { name: string }) => p.name)
          .sort();
        expect(declared).toEqual(templated);
        for (const p of op.parameters)
          expect(p).toEqual(
            expect.objectContaining({
              name: expect.any(String),
              in: expect.stringMatching(/^(path|query|header)$/),
              schema: expect.anything(),
            }),
          );
        // Authenticated POSTs take an Idempotency-Key (and may answer 422 for a reused one); nothing else does.
        const idempotent = method === 'post' && op.security.length > 0;
        expect(
          op.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'Idempotency-Key'),
        ).toBe(idempotent);
        expect(
          op.parameters.filter((p: { in: string; name: string }) => p.in === 'header' && p.name !== 'Idempotency-Key'),
        ).toEqual([]);
        if (idempotent) expect(op.responses['422']).toEqual({ $ref: '#/components/responses/Error422' });
        if (op.requestBody) expect(Object.keys(op.requestBody.content).length).toBeGreaterThan(0);
        for (const response of Object.values<any>(op.responses)) {
          if (response.$ref) expect(doc.components.responses[response.$ref.split('/').pop()]).toBeDefined();
          else expect(typeof response.description).toBe('string');
        }
      }
    }
    expect(operations.sort()).toEqual(app.runtime.routes.map((r) => key(r.method, toOpenApi(r.path))).sort());
  });

  it('marks public operations with empty security and the others with bearer or api_key', async () => {
    const doc = (await app.anonymous.get('/api/v1/docs?type=openapi')).body;
    for (const r of app.runtime.routes) {
      const op = doc.paths[toOpenApi(r.path)][r.method.toLowerCase()];
      if ('public' in r.access) expect(op.security).toEqual([]);
      else expect(op.security).toEqual([{ bearer: [...r.access.scopes] }, { apiKey: [...r.access.scopes] }]);
    }
  });

  it('narrows to a section', async () => {
    const doc = (await app.anonymous.get('/api/v1/docs?type=openapi&section=docs')).body;
    expect(Object.keys(doc.paths).sort()).toEqual(['/api/v1/docs', '/api/v1/docs/markdown']);
  });
});

describe('GET /api/v1/docs/markdown', () => {
  it('answers Markdown without a credential, mentioning conventions and every route', async () => {
    const res = await app.anonymous.get('/api/v1/docs/markdown');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text: string = res.body;
    expect(text).toMatch(/^# /);
    for (const heading of [
      '## Conventions',
      '### Authentication',
      '### Pagination',
      '### Errors',
      '### Rate limits',
      '### Preview mode',
    ]) {
      expect(text).toContain(heading);
    }
    for (const name of sectionNames()) expect(text).toContain(`## ${name}`);
    for (const r of app.runtime.routes) expect(text).toContain(`${r.method} ${r.path}\``);
  });

  it('lists query fields with type, required flag and description', async () => {
    const text: string = (await app.anonymous.get('/api/v1/docs/markdown')).body;
    expect(text).toContain('| Field | Type | Required | Description |');
    expect(text).toMatch(/\| `section` \| string \| no \| section name, case-insensitive[;|]/);
  });
});

it("documents the delay node's wait aliases and the boolean meaning of exists in lead scoring", async () => {
  const automations = JSON.stringify((await app.anonymous.get('/api/v1/docs?section=Automations')).body);
  for (const key of [
    'delayAmount',
    'delayUnit',
    'waitAmount',
    'waitUnit',
    'duration',
    'waitDays',
    'waitHours',
    'delayMinutes',
  ])
    expect(automations).toContain(key);
  const scoring = JSON.stringify((await app.anonymous.get('/api/v1/docs?section=Lead scoring')).body);
  expect(scoring).toMatch(/on hasEmail, hasPhone and hasValue they mean true\/false/);
});
