import { z } from 'zod';
import { crudRoutes, Existing } from '../../platform/http/crud';
import { jsonSchemaOf, successResponses, type HandlerInput, type RouteDef } from '../../platform/http/registry';
import type { Ctx } from '../../platform/context';

// The builder's wiring without a database: which routes, which envelopes, preview answers 200.
const view = z.object({ _id: z.string(), name: z.string() });
const calls: string[] = [];
const routes = crudRoutes({
  base: '/api/v1/widgets',
  section: 'Widgets',
  kind: 'widget',
  access: {
    read: { scopes: ['read'] },
    write: { scopes: ['write'] },
    ops: { remove: { scopes: ['write'], roles: ['owner'] } },
  },
  schemas: {
    list: z.object({ page: z.number(), limit: z.number() }),
    create: z.object({ name: z.string() }),
    update: z.object({ name: z.string() }).partial(),
    view,
  },
  service: {
    list: async () => ({ items: [{ _id: 'a', name: 'A' }], total: 7 }),
    create: async (_ctx, body, { preview }) => (
      calls.push(`create preview=${preview}`),
      preview ? { preview: true, current: null, proposed: { _id: 'x', ...body }, diff: {} } : { _id: 'x', ...body }
    ),
    get: async (_ctx, id) => ({ _id: id, name: 'A' }),
    update: async (_ctx, id, body, { preview }) => (
      calls.push(`update preview=${preview}`),
      { _id: id, name: body.name ?? 'A' }
    ),
    remove: async (_ctx, id) => void calls.push(`remove ${id}`),
  },
  summaries: { list: 'l', create: 'c', get: 'g', update: 'u', remove: 'd' },
  previewable: true,
});

const find = (method: string, path: string): RouteDef => routes.find((r) => r.method === method && r.path === path)!;
const call = (def: RouteDef, input: Partial<HandlerInput<unknown, unknown, unknown>>) =>
  def.handler({ params: {}, query: {}, body: {}, ctx: {} as Ctx, preview: false, koa: {} as never, ...input } as never);

describe('crudRoutes', () => {
  it('makes the five routes with access, resources and a response schema each', () => {
    expect(routes.map((r) => `${r.method} ${r.path} ${r.crud}`)).toEqual([
      'GET /api/v1/widgets list',
      'POST /api/v1/widgets create',
      'GET /api/v1/widgets/:id get',
      'PUT /api/v1/widgets/:id update',
      'DELETE /api/v1/widgets/:id remove',
    ]);
    for (const r of routes) expect(r.response).toBeDefined();
    expect(find('DELETE', '/api/v1/widgets/:id').access).toEqual({ scopes: ['write'], roles: ['owner'] });
    expect(find('GET', '/api/v1/widgets/:id').resources).toEqual({ id: 'widget' });
    expect(find('POST', '/api/v1/widgets').successStatus).toBe(201);
    expect(find('POST', '/api/v1/widgets').previewable && find('PUT', '/api/v1/widgets/:id').previewable).toBe(true);
  });

  it('answers with the spec envelopes, each matching its declared schema; preview is 200, not 201', async () => {
    const list = await call(find('GET', '/api/v1/widgets'), { query: { page: 2, limit: 1 } });
    expect(list).toEqual({ status: 200, body: { data: [{ _id: 'a', name: 'A' }], page: 2, limit: 1, total: 7 } });
    const made = await call(find('POST', '/api/v1/widgets'), { body: { name: 'W' } });
    expect(made.status).toBe(201);
    const preview = await call(find('POST', '/api/v1/widgets'), { body: { name: 'W' }, preview: true });
    expect(preview.status).toBe(200);
    const removed = await call(find('DELETE', '/api/v1/widgets/:id'), { params: { id: 'x' } });
    expect(removed).toEqual({ status: 200, body: { ok: true } });
    // Each answer matches the schema documented for its status.
    for (const [def, reply] of [
      [find('GET', '/api/v1/widgets'), list],
      [find('POST', '/api/v1/widgets'), made],
      [find('POST', '/api/v1/widgets'), preview],
      [find('DELETE', '/api/v1/widgets/:id'), removed],
    ] as const) {
      expect(jsonSchemaOf(successResponses(def).get(reply.status))!.safeParse(reply.body).success).toBe(true);
    }
    expect(successResponses(find('POST', '/api/v1/widgets')).get(201)).not.toBe(
      successResponses(find('POST', '/api/v1/widgets')).get(200),
    );
    expect(
      jsonSchemaOf(find('GET', '/api/v1/widgets').response)!.safeParse({ data: [], page: 1, limit: 1 }).success,
    ).toBe(false);
    expect(calls).toEqual(['create preview=false', 'create preview=true', 'remove x']);
  });
});

describe('crudRoutes: what differs per resource', () => {
  const gadget = z.object({ _id: z.string(), title: z.string() });
  const summary = z.object({ _id: z.string() });
  const seen: unknown[] = [];
  const gadgets = crudRoutes({
    base: '/api/v1/gadgets',
    section: 'Gadgets',
    kind: 'gadget',
    access: { read: { scopes: ['read'] }, write: { scopes: ['write'] } },
    schemas: {
      list: z.object({ page: z.number(), limit: z.number(), view: z.enum(['full', 'summary']).optional() }),
      create: z.object({ title: z.string() }),
      update: z.object({ title: z.string() }).partial(),
      view: gadget,
    },
    service: {
      list: async (_ctx, query) => ({ items: [{ _id: 'a' }], total: 1, extra: { view: query.view ?? 'full' } }),
      // 'Known' stands for a repeated idempotency key: the stored record, not a new one.
      create: async (_ctx, body) =>
        body.title === 'Known' ? new Existing({ _id: 'k', ...body }) : { _id: 'x', ...body },
      get: async (_ctx, id, query) => (seen.push(query), { _id: id, title: 'T' }),
      update: async (_ctx, id, body) => ({ _id: id, title: body.title ?? 'T' }),
      remove: async (_ctx, id) => ({ _id: id, deleted: true }),
    },
    summaries: { list: 'l', create: 'c', get: 'g', update: 'u', remove: 'd' },
    updateMethod: 'PATCH',
    routes: {
      list: { response: z.object({ data: z.array(summary), page: z.number(), limit: z.number(), total: z.number() }) },
      get: { query: z.object({ fields: z.string().optional() }), description: 'with fields=' },
      remove: { response: z.object({ data: z.object({ _id: z.string(), deleted: z.literal(true) }) }), errors: [410] },
    },
  });
  const at = (method: string, path: string): RouteDef => gadgets.find((r) => r.method === method && r.path === path)!;

  it('updates with PATCH, documents the overrides, and keeps the crud markers', () => {
    expect(gadgets.map((r) => `${r.method} ${r.path} ${r.crud}`)).toContain('PATCH /api/v1/gadgets/:id update');
    expect(at('GET', '/api/v1/gadgets/:id').description).toBe('with fields=');
    expect(at('DELETE', '/api/v1/gadgets/:id').errors).toEqual([410]);
  });

  it('passes the get query, adds list envelope keys, and answers a delete value as { data }', async () => {
    await call(at('GET', '/api/v1/gadgets/:id'), { params: { id: 'g' }, query: { fields: 'title' } });
    expect(seen).toEqual([{ fields: 'title' }]);
    const list = await call(at('GET', '/api/v1/gadgets'), { query: { page: 1, limit: 5, view: 'summary' } });
    expect(list.body).toEqual({ data: [{ _id: 'a' }], view: 'summary', page: 1, limit: 5, total: 1 });
    const removed = await call(at('DELETE', '/api/v1/gadgets/:id'), { params: { id: 'g' } });
    expect(removed).toEqual({ status: 200, body: { data: { _id: 'g', deleted: true } } });
    expect(jsonSchemaOf(at('DELETE', '/api/v1/gadgets/:id').response)!.safeParse(removed.body).success).toBe(true);
  });

  it('answers a create that found its record already stored with 200 and the record, a new one with 201', async () => {
    const made = await call(at('POST', '/api/v1/gadgets'), { body: { title: 'New' } });
    expect(made).toEqual({ status: 201, body: { data: { _id: 'x', title: 'New' } } });
    const found = await call(at('POST', '/api/v1/gadgets'), { body: { title: 'Known' } });
    expect(found).toEqual({ status: 200, body: { data: { _id: 'k', title: 'Known' } } });
  });
});
