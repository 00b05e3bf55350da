import { z } from 'zod';
import { STATUS_BY_CODE } from '../../platform/http/errors';
import { route, type RouteDef } from '../../platform/http/registry';
import { ERROR_TABLE, referenceHeader } from '../../api/docs/conventions';
import { markdownReference } from '../../api/docs/markdown';
import { openApiDocument } from '../../api/docs/openapi';
import { endpointDoc, findSection, groupSections, matchesSubsection } from '../../api/docs/reference';
import { docsQuery, resolveDocs } from '../../api/docs/resolve';
import { fieldRows, openApiPath, paramsJsonSchema, toJsonSchema, typeLabel } from '../../platform/http/json-schema';
import { DomainError } from '../../platform/errors';

const handler = async () => ({ status: 200, body: {} });
const idParams = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/) });

const ROUTES: RouteDef[] = [
  route({
    method: 'GET',
    path: '/api/v1/widgets',
    section: 'Widgets',
    summary: 'List widgets.',
    access: { scopes: ['read'] },
    handler,
    query: z
      .object({
        page: z.coerce.number().int().min(1).default(1),
        limit: z.coerce.number().int().min(1).max(100).default(20),
        q: z.string().optional().describe('free-text search'),
      })
      .transform((q) => ({ ...q, search: q.q })),
  }),
  route({
    method: 'POST',
    path: '/api/v1/widgets',
    section: 'Widgets',
    summary: 'Create a widget.',
    access: { scopes: ['write'] },
    handler,
    previewable: true,
    successStatus: 201,
    body: z.object({
      name: z.string().min(1).describe('display name'),
      size: z.number().int().optional(),
      address: z.object({ city: z.string().describe('city name'), zip: z.string().optional() }).optional(),
      lines: z.array(z.object({ sku: z.string() })).optional(),
      when: z.date().optional(),
      code: z.string().transform(Number),
    }),
  }),
  route({
    method: 'GET',
    path: '/api/v1/widgets/:id',
    section: 'Widgets',
    summary: 'Get one widget.',
    access: { scopes: ['read'] },
    handler,
    params: idParams,
    resources: { id: 'widget' },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/widgets/:id/parts/:partId',
    section: 'Widgets',
    summary: 'Remove a part.',
    handler,
    access: { scopes: ['write', 'admin'], roles: ['owner', 'admin'] },
    params: idParams,
  }),
  route({
    method: 'POST',
    path: '/api/v1/gadget-boxes/import',
    section: 'Gadget boxes',
    summary: 'Import gadgets.',
    handler,
    access: { scopes: ['import'] },
    rawBody: true,
  }),
  route({
    method: 'GET',
    path: '/healthz',
    section: 'System',
    summary: 'Liveness.',
    access: { public: 'probe' },
    handler,
  }),
];

const resolve = (query: Record<string, string>) => resolveDocs(ROUTES, docsQuery.parse(query));

function expectDomainError(fn: () => unknown, code: string, message: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe(code);
    expect((err as DomainError).message).toMatch(message);
    return;
  }
  throw new Error('expected a DomainError');
}

describe('zod → JSON Schema', () => {
  it('uses the request side of transforms and keeps .describe() texts', () => {
    const schema = toJsonSchema(ROUTES[0]!.query)!;
    expect(schema.$schema).toBeUndefined();
    expect(schema.properties).toMatchObject({
      page: { type: 'integer', minimum: 1, default: 1 },
      limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      q: { type: 'string', description: 'free-text search' },
    });
    expect((schema.properties as Record<string, object>).search).toBeUndefined();
  });

  it('drops the ±MAX_SAFE_INTEGER bounds zod puts on .int()', () => {
    const schema = toJsonSchema(z.object({ n: z.number().int() }))!;
    expect(schema.properties).toEqual({ n: { type: 'integer' } });
  });

  it('does not fail on types JSON Schema cannot express', () => {
    const schema = toJsonSchema(ROUTES[1]!.body)!;
    expect((schema.properties as Record<string, object>).when).toEqual({});
    expect(schema.required).toEqual(['name', 'code']);
  });

  it('turns a conversion failure into a permissive schema that says so', () => {
    const broken = {} as unknown as z.ZodType;
    const schema = toJsonSchema(broken)!;
    expect(schema['x-unrepresentable']).toBe(true);
    expect(schema.description).toMatch(/not representable/);
  });

  it('documents every path parameter, with the resource kind when declared', () => {
    const get = paramsJsonSchema(ROUTES[2]!)!;
    expect(get.required).toEqual(['id']);
    expect(get.properties).toMatchObject({ id: { type: 'string', description: 'widget id' } });
    const nested = paramsJsonSchema(ROUTES[3]!)!;
    expect(nested.required).toEqual(['id', 'partId']);
    expect(nested.properties).toMatchObject({ partId: { type: 'string' } });
    expect(paramsJsonSchema(ROUTES[0]!)).toBeNull();
  });

  it.each([
    [{ type: 'string' }, 'string'],
    [{ type: 'array', items: { type: 'integer' } }, 'integer[]'],
    [{ enum: ['a', 'b'] }, '"a" | "b"'],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, 'string | null'],
    [{ type: 'string', format: 'email' }, 'string (email)'],
    [{ type: 'object', additionalProperties: {} }, 'object (map)'],
    [{}, 'any'],
  ])('type label of %j is %s', (schema, expected) => {
    expect(typeLabel(schema)).toBe(expected);
  });

  it('flattens nested objects and arrays of objects into field rows', () => {
    const rows = fieldRows(toJsonSchema(ROUTES[1]!.body));
    expect(rows.map((r) => r.name)).toEqual([
      'name',
      'size',
      'address',
      'address.city',
      'address.zip',
      'lines',
      'lines[].sku',
      'when',
      'code',
    ]);
    expect(rows[0]).toEqual({
      name: 'name',
      type: 'string',
      required: true,
      description: 'display name; min length 1',
    });
    expect(rows.find((r) => r.name === 'address.city')).toMatchObject({ required: true, description: 'city name' });
  });

  it('converts Koa path parameters to OpenAPI templates', () => {
    expect(openApiPath('/api/v1/widgets/:id/parts/:partId')).toBe('/api/v1/widgets/{id}/parts/{partId}');
  });
});

describe('sections', () => {
  it('keep the order of first appearance', () => {
    expect(groupSections(ROUTES).map((s) => s.name)).toEqual(['Widgets', 'Gadget boxes', 'System']);
  });

  it.each(['widgets', 'WIDGETS', ' Widgets '])('are found case-insensitively: %j', (name) => {
    expect(findSection(groupSections(ROUTES), name)?.name).toBe('Widgets');
  });

  it('are also found by slug', () => {
    expect(findSection(groupSections(ROUTES), 'gadget-boxes')?.name).toBe('Gadget boxes');
  });

  it.each([
    ['parts', ['DELETE /api/v1/widgets/:id/parts/:partId']],
    ['widgets/:id', ['GET /api/v1/widgets/:id', 'DELETE /api/v1/widgets/:id/parts/:partId']],
    ['/api/v1/widgets/{id}', ['GET /api/v1/widgets/:id', 'DELETE /api/v1/widgets/:id/parts/:partId']],
    ['widget', ['GET /api/v1/widgets/:id']],
    ['wid', []],
  ])('subsection %j matches whole segments or a resource kind', (fragment, expected) => {
    const matched = ROUTES.filter((r) => matchesSubsection(r, fragment)).map((r) => `${r.method} ${r.path}`);
    expect(matched).toEqual(expected);
  });
});

describe('endpoint documentation', () => {
  it('describes auth, preview, body formats and success status', () => {
    expect(endpointDoc(ROUTES[1]!)).toMatchObject({
      method: 'POST',
      auth: { public: false, scopes: ['write'], roles: ['owner', 'admin', 'member'] },
      previewable: true,
      successStatus: 201,
      bodyFormats: ['application/json'],
    });
    expect(endpointDoc(ROUTES[3]!).auth).toEqual({
      public: false,
      scopes: ['write', 'admin'],
      roles: ['owner', 'admin'],
    });
    expect(endpointDoc(ROUTES[4]!).bodyFormats).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
    ]);
    expect(endpointDoc(ROUTES[5]!)).toMatchObject({
      auth: { public: true, reason: 'probe' },
      bodyFormats: [],
      successStatus: 200,
      params: null,
      query: null,
      body: null,
    });
  });

  it('the error table covers every status the error mapper can produce', () => {
    const documented = ERROR_TABLE.map((r) => r.status);
    for (const status of Object.values(STATUS_BY_CODE)) expect(documented).toContain(status);
    for (const [code, status] of Object.entries(STATUS_BY_CODE)) {
      expect(ERROR_TABLE.find((r) => r.status === status)?.codes).toContain(code);
    }
    expect(documented).toEqual(expect.arrayContaining([400, 401, 403, 404, 405, 409, 413, 429, 500]));
  });

  it('reports the configured limits', () => {
    const header = referenceHeader({ rateLimitPerMinute: 7, rateLimitPerDay: 70, bodyLimitBytes: 1000 });
    expect(header.conventions.rateLimits).toMatchObject({ perMinute: 7, perDay: 70 });
    expect(header.conventions.bodyLimitBytes).toBe(1000);
  });
});

describe('resolveDocs', () => {
  it('without parameters answers the index with route counts per section', () => {
    const out = resolve({});
    expect(out.kind).toBe('json');
    const data = (out as { body: { data: { sections: unknown[]; version: string } } }).body.data;
    expect(data.version).toBe('1.0');
    expect(data.sections).toEqual([
      { name: 'Widgets', routes: 4, href: '/api/v1/docs?section=Widgets' },
      { name: 'Gadget boxes', routes: 1, href: '/api/v1/docs?section=Gadget%20boxes' },
      { name: 'System', routes: 1, href: '/api/v1/docs?section=System' },
    ]);
  });

  it('index=true lists endpoints by section; with section only that one', () => {
    const body = (resolve({ index: 'true', section: 'system' }) as { body: unknown }).body;
    expect(body).toEqual({
      data: { sections: [{ name: 'System', endpoints: [{ method: 'GET', path: '/healthz', summary: 'Liveness.' }] }] },
    });
  });

  it('section + subsection answers the matching endpoints in full', () => {
    const body = (
      resolve({ section: 'widgets', subsection: 'parts' }) as {
        body: { data: { section: string; subsection: string; endpoints: { path: string; params: object }[] } };
      }
    ).body;
    expect(body.data.section).toBe('Widgets');
    expect(body.data.subsection).toBe('parts');
    expect(body.data.endpoints.map((e) => e.path)).toEqual(['/api/v1/widgets/:id/parts/:partId']);
    expect(body.data.endpoints[0]!.params).toMatchObject({ type: 'object', required: ['id', 'partId'] });
  });

  it('full=true answers every section in full', () => {
    const body = (
      resolve({ full: 'true' }) as { body: { data: { sections: { endpoints: unknown[] }[]; conventions: object } } }
    ).body;
    expect(body.data.conventions).toBeDefined();
    expect(body.data.sections.flatMap((s) => s.endpoints)).toHaveLength(ROUTES.length);
  });

  it.each([
    [{ section: 'nope' }, 'not_found', /valid sections: Widgets, Gadget boxes, System/],
    [{ section: 'widgets', subsection: 'nope' }, 'not_found', /try: widgets, widget/],
    [{ subsection: 'parts' }, 'validation', /subsection needs section/],
    [{ index: 'true', full: 'true' }, 'validation', /exclude/],
    [{ index: 'true', type: 'markdown' }, 'validation', /type=json/],
  ])('refuses %j', (query, code, message) => {
    expectDomainError(() => resolve(query), code, message);
  });

  it.each([{ type: 'yaml' }, { index: '1' }, { full: 'yes' }, { section: '' }, { other: 'x' }])(
    'the query schema refuses %j',
    (query) => {
      expect(docsQuery.safeParse(query).success).toBe(false);
    },
  );

  it('names an unknown query parameter in the error', () => {
    const result = docsQuery.safeParse({ sectoin: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/unknown query parameter sectoin/);
  });
});

describe('OpenAPI', () => {
  const doc = openApiDocument(ROUTES) as any;

  it('has the 3.1 skeleton, both security schemes and the error schema', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: '/' }]);
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'api_key' }),
    });
    expect(doc.components.schemas.Error).toMatchObject({ type: 'object', required: ['error'] });
    expect(doc.tags).toEqual([
      { name: 'Widgets' },
      { name: 'Gadget boxes' },
      { name: 'System', description: 'Liveness and readiness probes for load balancers and orchestrators.' },
    ]);
  });

  it('turns each route into an operation with parameters, body, responses and security', () => {
    const list = doc.paths['/api/v1/widgets'].get;
    expect(
      list.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
    ).toEqual([
      ['page', 'query', false],
      ['limit', 'query', false],
      ['q', 'query', false],
    ]);
    expect(list.parameters[2].description).toBe('free-text search');
    expect(list.security).toEqual([{ bearer: ['read'] }, { apiKey: ['read'] }]);
    expect(Object.keys(list.responses)).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);

    const create = doc.paths['/api/v1/widgets'].post;
    expect(create.requestBody.required).toBe(true);
    expect(create.requestBody.content['application/json'].schema.properties.name).toMatchObject({ type: 'string' });
    expect(create.responses['201']).toBeDefined();
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'preview', in: 'query' }));

    const remove = doc.paths['/api/v1/widgets/{id}/parts/{partId}'].delete;
    expect(
      remove.parameters.filter((p: { in: string }) => p.in === 'path').map((p: { name: string }) => p.name),
    ).toEqual(['id', 'partId']);
    expect(remove.parameters.every((p: { in: string; required: boolean }) => p.in !== 'path' || p.required)).toBe(true);

    const health = doc.paths['/healthz'].get;
    expect(health.security).toEqual([]);
    expect(health.responses['401']).toBeUndefined();
    expect(doc.paths['/api/v1/gadget-boxes/import'].post.requestBody.content['text/plain']).toBeDefined();
  });

  it('documents the parameters of a union query schema', () => {
    const union = z.union([
      z.object({ a: z.string(), b: z.string() }),
      z.object({ a: z.string(), c: z.string().optional() }),
    ]);
    const routes = [
      route({ method: 'GET', path: '/u', section: 'U', summary: 's', access: { public: 'p' }, handler, query: union }),
    ];
    const op = (openApiDocument(routes) as any).paths['/u'].get;
    expect(op.parameters.map((p: { name: string; required: boolean }) => [p.name, p.required])).toEqual([
      ['a', true],
      ['b', false],
      ['c', false],
    ]);
  });

  it('gives every operation a unique id and resolvable response references', () => {
    const ids = new Set<string>();
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        expect(ids.has(op.operationId)).toBe(false);
        ids.add(op.operationId);
        for (const res of Object.values<any>(op.responses)) {
          if (res.$ref) expect(doc.components.responses[res.$ref.split('/').pop()]).toBeDefined();
        }
      }
    }
    expect(ids.size).toBe(ROUTES.length);
  });
});

describe('Markdown', () => {
  const text = markdownReference(ROUTES);

  it('starts with the conventions, then a heading per section and per endpoint', () => {
    expect(text.indexOf('## Conventions')).toBeLessThan(text.indexOf('## Widgets'));
    for (const heading of [
      '### Authentication',
      '### Envelopes',
      '### Pagination',
      '### Errors',
      '### Rate limits',
      '### Preview mode',
    ]) {
      expect(text).toContain(heading);
    }
    for (const r of ROUTES) expect(text).toContain(`### \`${r.method} ${r.path}\``);
    expect(text).toContain('X-RateLimit-Remaining-Day');
  });

  it('lists fields with type, required flag and description', () => {
    expect(text).toContain('| `name` | string | yes | display name; min length 1 |');
    expect(text).toContain('| `q` | string | no | free-text search |');
    expect(text).toContain('| `limit` | integer | no | default 20; 1–100 |');
    expect(text).toContain('**Auth:** API key; scopes: `write`, `admin`; roles: owner, admin');
    expect(text).toContain('**Auth:** none (public: probe)');
  });

  it('escapes pipes inside table cells', () => {
    expect(text).toMatch(/\| `code` \| string \| yes \|/);
    const enumRoutes = [
      route({
        method: 'GET',
        path: '/x',
        section: 'X',
        summary: 's',
        access: { public: 'p' },
        handler,
        query: z.object({ t: z.enum(['a', 'b']) }),
      }),
    ];
    expect(markdownReference(enumRoutes, { withConventions: false })).toContain('| `t` | "a" \\| "b" | yes |  |');
  });
});
