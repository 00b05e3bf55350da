import type { Context } from 'koa';
import type { z } from 'zod';
import type { Ctx, Role, Scope } from '../../domain/context';
import type { Transitions } from '../../domain/shared/transitions';

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
  /** Schema of the success body (envelope included); the OpenAPI document shows it. */
  response?: z.ZodType;
  /** Set by crudRoutes: which CRUD operation this is (the CRUD contract suite walks these). */
  crud?: 'list' | 'create' | 'get' | 'update' | 'remove';
  /** State-transition tables (`<module>.rules.ts`) this route enforces; shown in the docs. */
  transitions?: readonly Transitions<string>[];
  handler: (input: HandlerInput<z.infer<P>, z.infer<Q>, z.infer<B>>) => Promise<Reply>;
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
