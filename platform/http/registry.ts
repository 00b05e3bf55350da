import type { Context } from 'koa';
import type { z } from 'zod';
import type { Ctx, Role, Scope } from '../context';
import type { Transitions } from '../shared/transitions';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Every route declares who may call it, in one place; the route-guard test walks these. */
export type Access = { scopes: readonly Scope[]; roles?: readonly Role[] } | { public: string };

export interface HandlerInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  ctx: Ctx;
  preview: boolean;
  koa: Context;
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
> {
  method: Method;
  /** Koa path, e.g. /api/v1/companies/:id */
  path: string;
  section: string;
  summary: string;
  description?: string;
  access: Access;
  params?: P;
  query?: Q;
  body?: B;
  /** The body may be JSON, form-urlencoded or text; the route parses it itself. */
  rawBody?: boolean;
  /**
   * Reads a body the body parser leaves alone (a multipart upload) after auth and before the
   * Idempotency-Key claim: `summary` becomes the request body the key's request hash covers (so a
   * retry with other content is a mismatch, not a replay); the handler finds what it needs on
   * `koa.state`. `dispose` runs once the request is answered (handled, replayed or failed).
   */
  prepareBody?: (koa: Context) => Promise<{ summary: unknown; dispose(): Promise<void> }>;
  /** POST/PUT writes that honour `preview: true` / `?preview=true` (spec: Preview mode). */
  previewable?: boolean;
  /** Path parameter → resource kind, so the tenant-isolation suite can build a record for it. */
  resources?: Record<string, string>;
  /** Documented success status (200 unless stated). */
  successStatus?: number;
  /**
   * The answer at `successStatus`: a zod schema of the JSON body (envelope included), or a
   * `ResponseSpec` for other media, headers or an empty body. Required on every route (the
   * registry test); the OpenAPI document shows it and the test-time contract check enforces it.
   */
  response?: ResponseSpec;
  /** Other answers the route gives besides `successStatus` (e.g. 202 beside 200, a 303 redirect). */
  responses?: Readonly<Record<number, ResponseSpec>>;
  /**
   * Error statuses this route gives beyond the ones every route of its kind may give
   * (`defaultErrorStatuses`), e.g. 409 on a read, 410, 502.
   */
  errors?: readonly number[];
  /** Set by publicRoute: the handler gets no workspace context (the registry test requires it of public routes). */
  keyless?: true;
  /** Set by crudRoutes: which CRUD operation this is (the CRUD contract suite walks these). */
  crud?: 'list' | 'create' | 'get' | 'update' | 'remove';
  /** State-transition tables (`<module>.rules.ts`) this route enforces; shown in the docs. */
  transitions?: readonly Transitions<string>[];
  handler: (input: HandlerInput<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<Reply>;
}

/** Response headers the document describes (components/headers); a route names the ones it sets. */
export const RESPONSE_HEADERS = {
  Location: 'where the created or next resource is',
  'Idempotent-Replayed': '`true` when this is the stored answer of an earlier request with the same Idempotency-Key',
  'Content-Disposition': 'attachment; filename="…" for downloads',
  'Cache-Control': 'caching policy of the answer',
  'Retry-After': 'seconds to wait before retrying (429; 503 while a dependency is down, not for not_configured)',
  'X-Request-Id': 'the request id (also in logs); send X-Request-Id to choose it',
} as const;
export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

/** A JSON answer with a description or headers of its own. */
export interface JsonResponse {
  json: z.ZodType;
  description?: string;
  headers?: readonly ResponseHeader[];
  /** Other media the same status answers when the client asks for it (Accept), e.g. text/html. */
  otherMedia?: readonly string[];
}

/** An answer that is not JSON: a download, a CSV export, a public HTML page, a calendar feed. */
export interface MediaResponse {
  /** Media types the body may have, e.g. ['text/csv'] or ['image/png', 'image/jpeg']. */
  media: readonly string[];
  description: string;
  /** JSON Schema of the body when it is text with a shape; binary by default. */
  schema?: Record<string, unknown>;
  headers?: readonly ResponseHeader[];
}

/** An answer without a body (204, a redirect). */
export interface EmptyResponse {
  empty: true;
  description: string;
  headers?: readonly ResponseHeader[];
}

export type ResponseSpec = z.ZodType | JsonResponse | MediaResponse | EmptyResponse;

export const isMediaResponse = (spec: ResponseSpec): spec is MediaResponse => 'media' in spec;
export const isEmptyResponse = (spec: ResponseSpec): spec is EmptyResponse => 'empty' in spec;
export const isJsonResponse = (spec: ResponseSpec): spec is JsonResponse => 'json' in spec;

/** The zod schema of a JSON answer (undefined for media and empty answers). */
export function jsonSchemaOf(spec: ResponseSpec | undefined): z.ZodType | undefined {
  if (!spec || isMediaResponse(spec) || isEmptyResponse(spec)) return undefined;
  return isJsonResponse(spec) ? spec.json : spec;
}

/** Every documented answer of a route, by status (success ones only; errors: `errorStatuses`). */
export function successResponses(def: RouteDef): Map<number, ResponseSpec> {
  const out = new Map<number, ResponseSpec>();
  if (def.response) out.set(def.successStatus ?? 200, def.response);
  for (const [status, spec] of Object.entries(def.responses ?? {})) out.set(Number(status), spec);
  return out;
}

const WRITE_METHODS: readonly Method[] = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Error statuses every route may give, by its kind: any route 400 (input), 404, 500 and 503 (a
 * dependency down); an authenticated one 401, 403, 429; one that takes a body 413 and 415; a write
 * 409 (conflict, invalid_state); an authenticated POST 422 (Idempotency-Key reused with another body).
 */
export function errorStatuses(def: Pick<RouteDef, 'method' | 'access' | 'body' | 'rawBody' | 'errors'>): number[] {
  const out = new Set<number>([400, 404, 500, 503]);
  if (!isPublic(def.access)) [401, 403, 429].forEach((s) => out.add(s));
  if (def.body || def.rawBody || def.method !== 'GET') [413, 415].forEach((s) => out.add(s));
  if (WRITE_METHODS.includes(def.method)) out.add(409);
  if (def.method === 'POST' && !isPublic(def.access)) out.add(422);
  for (const s of def.errors ?? []) out.add(s);
  return [...out].sort((a, b) => a - b);
}

/** Identity helper that keeps the zod types of one route flowing into its handler. */
export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType>(def: RouteDef<P, Q, B>): RouteDef {
  return def as unknown as RouteDef;
}

export const isPublic = (access: Access): access is { public: string } => 'public' in access;

export const ok = (data: unknown): Reply => ({ status: 200, body: { data } });
export const created = (data: unknown): Reply => ({ status: 201, body: { data } });
/** Delete and similar acknowledgements answer `{ ok: true }` (spec: Conventions). */
export const acknowledged = (): Reply => ({ status: 200, body: { ok: true } });
export const paged = (
  data: unknown[],
  meta: { page: number; limit: number; total: number } & Record<string, unknown>,
): Reply => ({
  status: 200,
  body: { data, ...meta },
});

/** The list envelope of the page a service found (`{ items, total }`), at the page and limit the query asked for. */
export const pageOf = (found: { items: unknown[]; total: number }, query: { page: number; limit: number }): Reply =>
  paged(found.items, { page: query.page, limit: query.limit, total: found.total });
