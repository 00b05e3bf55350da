import type { Context } from 'koa';
import { z } from 'zod';
import type { Ctx } from '../context';
import {
  acknowledged,
  created,
  ok,
  paged,
  route,
  type Access,
  type Method,
  type Reply,
  type ResponseSpec,
  type RouteDef,
} from './registry';
import { idParams } from '../shared/schemas';

/** Response envelopes of the spec, as zod schemas, so the OpenAPI document shows real bodies. */
export const envelopes = {
  data: <V extends z.ZodType>(view: V) => z.object({ data: view }),
  list: <V extends z.ZodType>(view: V) =>
    z.object({
      data: z.array(view),
      page: z.number().int().min(1),
      limit: z.number().int().min(1),
      total: z.number().int().min(0),
    }),
  ok: z.object({ ok: z.literal(true) }),
  preview: <V extends z.ZodType>(view: V) =>
    z.object({
      data: z.object({
        preview: z.literal(true),
        current: view.nullable().describe('the record as stored (null on create)'),
        proposed: view,
        diff: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).describe('field → { from, to }'),
      }),
    }),
};

type Op = 'list' | 'create' | 'get' | 'update' | 'remove';

/**
 * What `service.create` answers when the record it was asked to make is already stored (a repeated idempotency
 * key such as externalId): the create route answers it with 200 instead of 201. Document that answer in
 * `routes.create.responses`.
 */
export class Existing {
  constructor(readonly record: unknown) {}
}

export type CrudRouteOverrides = Partial<
  Pick<RouteDef, 'description' | 'query' | 'response' | 'responses' | 'errors' | 'transitions'>
>;

export interface CrudSpec<LQ extends z.ZodType, CB extends z.ZodType, UB extends z.ZodType> {
  /** Collection path, e.g. /api/v1/filter-presets; the record lives at `${base}/:id`. */
  base: string;
  section: string;
  /** Resource kind of :id (tenant-isolation suite, docs). */
  kind: string;
  /** Who may read (list, get) and write (create, update, delete); `ops` overrides one operation. */
  access: { read: Access; write: Access; ops?: Partial<Record<Op, Access>> };
  schemas: {
    /** List query: must include page/limit (pageParams); `.strict()` it for a strict list. Omit with `unpaged`. */
    list?: LQ;
    create: CB;
    update: UB;
    /** The record as the API shows it (documentation and the contract suite). */
    view: z.ZodType;
  };
  service: {
    /** Paged: `{ items, total }` of the page (and `extra` envelope keys, e.g. `view`); unpaged: every record. */
    list(
      ctx: Ctx,
      query: z.infer<LQ>,
    ): Promise<{ items: unknown[]; total: number; extra?: Record<string, unknown> } | unknown[]>;
    /** The created record's view, or `new Existing(view)` for one already stored (200). */
    create(ctx: Ctx, body: z.infer<CB>, opts: { preview: boolean }): Promise<unknown>;
    /** The view of one record; throws 404 for an unknown, invisible or foreign id. `query`: see `routes.get.query`. */
    get(ctx: Ctx, id: string, query?: unknown): Promise<unknown>;
    update(ctx: Ctx, id: string, body: z.infer<UB>, opts: { preview: boolean }): Promise<unknown>;
    /** Nothing: the delete answers `{ ok: true }`; a value: `{ data: value }` (document it: routes.remove.response). */
    remove(ctx: Ctx, id: string): Promise<unknown>;
  };
  /** The update's method: PUT (default) or PATCH; either way a partial update. */
  updateMethod?: 'PUT' | 'PATCH';
  /**
   * Per operation, what differs from the plain shape: a description, a get query (`fields=`), another
   * documented answer (a summary list, a delete that answers the record), other answers, extra error
   * statuses, the state-transition tables it enforces.
   */
  routes?: Partial<Record<Op, CrudRouteOverrides>>;
  summaries: Record<Op, string>;
  /** POST/PUT accept `preview: true` / `?preview=true` and answer { data: { preview, current, proposed, diff } }. */
  previewable?: boolean;
  /** Small bounded collections (rules): the list answers `{ data: [...] }` with every record, no paging. */
  unpaged?: boolean;
}

/** `service.get` of a record whose view needs only the row: `serialize(await load(ctx, id))`. */
export function viewOf<R>(
  load: (ctx: Ctx, id: string) => Promise<R>,
  serialize: (row: R) => unknown,
): (ctx: Ctx, id: string) => Promise<unknown> {
  return async (ctx, id) => serialize(await load(ctx, id));
}

/** The five routes of a plain resource: list, create, get, update (partial), delete, with the spec's envelopes. */
export function crudRoutes<LQ extends z.ZodType, CB extends z.ZodType, UB extends z.ZodType>(
  spec: CrudSpec<LQ, CB, UB>,
): RouteDef[] {
  const { base, section, schemas, service, summaries } = spec;
  const resources = { id: spec.kind };
  const access = (op: Op): Access =>
    spec.access.ops?.[op] ?? (op === 'list' || op === 'get' ? spec.access.read : spec.access.write);
  const previewable = Boolean(spec.previewable);
  const written = (view: z.ZodType) =>
    previewable ? z.union([envelopes.data(view), envelopes.preview(view)]) : envelopes.data(view);
  const tuned = (op: Op, def: RouteDef): RouteDef => {
    const extra = spec.routes?.[op];
    if (!extra) return def;
    return { ...def, ...extra, responses: { ...def.responses, ...extra.responses } };
  };
  const routes: RouteDef[] = [
    spec.unpaged
      ? route({
          method: 'GET',
          path: base,
          section,
          access: access('list'),
          summary: summaries.list,
          response: envelopes.data(z.array(schemas.view)),
          crud: 'list',
          handler: async ({ ctx, query }) => {
            const all = await service.list(ctx, query as z.infer<LQ>);
            return ok(Array.isArray(all) ? all : all.items);
          },
        })
      : route({
          method: 'GET',
          path: base,
          section,
          access: access('list'),
          query: schemas.list,
          summary: summaries.list,
          response: envelopes.list(schemas.view),
          crud: 'list',
          handler: async ({ ctx, query }) => {
            const result = await service.list(ctx, query);
            if (Array.isArray(result)) throw new Error(`${base}: a paged list must return { items, total }`);
            const { page, limit } = query as { page: number; limit: number };
            return paged(result.items, { ...result.extra, page, limit, total: result.total });
          },
        }),
    route({
      method: 'POST',
      path: base,
      section,
      access: access('create'),
      body: schemas.create,
      summary: summaries.create,
      successStatus: 201,
      previewable,
      response: envelopes.data(schemas.view),
      // A preview saves nothing: 200 with { data: { preview, current, proposed, diff } }.
      ...(previewable ? { responses: { 200: envelopes.preview(schemas.view) } } : {}),
      crud: 'create',
      handler: async ({ ctx, body, preview }) => {
        const result = await service.create(ctx, body, { preview });
        if (result instanceof Existing) return ok(result.record);
        return preview ? ok(result) : created(result);
      },
    }),
    route({
      method: 'GET',
      path: `${base}/:id`,
      section,
      access: access('get'),
      params: idParams,
      resources,
      summary: summaries.get,
      response: envelopes.data(schemas.view),
      crud: 'get',
      handler: async ({ ctx, params, query }) => ok(await service.get(ctx, params.id, query)),
    }),
    route({
      method: spec.updateMethod ?? 'PUT',
      path: `${base}/:id`,
      section,
      access: access('update'),
      params: idParams,
      body: schemas.update,
      resources,
      summary: summaries.update,
      previewable,
      response: written(schemas.view),
      crud: 'update',
      handler: async ({ ctx, params, body, preview }) => ok(await service.update(ctx, params.id, body, { preview })),
    }),
    route({
      method: 'DELETE',
      path: `${base}/:id`,
      section,
      access: access('remove'),
      params: idParams,
      resources,
      summary: summaries.remove,
      response: envelopes.ok,
      crud: 'remove',
      handler: async ({ ctx, params }) => {
        const answer = await service.remove(ctx, params.id);
        return answer === undefined ? acknowledged() : ok(answer);
      },
    }),
  ];
  const ops: Op[] = ['list', 'create', 'get', 'update', 'remove'];
  return routes.map((def, i) => tuned(ops[i]!, def));
}

/**
 * A route without a workspace context (no key, no rate limit): public pages, inbound callbacks.
 * The handler gets no `ctx`; whatever it reads it must scope itself (e.g. by an unguessable token).
 */
export function publicRoute<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(def: {
  method: Method;
  path: string;
  section: string;
  summary: string;
  description?: string;
  /** Why no key is needed (shown in the docs; the route-guard suite requires it). */
  reason: string;
  params?: P;
  query?: Q;
  body?: B;
  rawBody?: boolean;
  response?: ResponseSpec;
  responses?: RouteDef['responses'];
  errors?: RouteDef['errors'];
  successStatus?: number;
  /** Reads a body the body parser leaves alone (multipart); see RouteDef.prepareBody. */
  prepareBody?: RouteDef['prepareBody'];
  handler: (input: { params: z.infer<P>; query: z.infer<Q>; body: z.infer<B>; koa: Context }) => Promise<Reply>;
}): RouteDef {
  const { reason, handler, ...rest } = def;
  return route<P, Q, B>({
    ...rest,
    access: { public: reason },
    keyless: true,
    handler: ({ params, query, body, koa }) => handler({ params, query, body, koa }),
  });
}
