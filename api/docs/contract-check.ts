import fs from 'node:fs';
import type { Context, Next } from 'koa';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { RouteDef } from '../../platform/http/registry';
import { openApiDocument } from './openapi';
import { openApiPath, type JsonSchema } from '../../platform/http/json-schema';

/**
 * Test-time guard that the API is exactly as good as its document: every answer is checked
 * against the OpenAPI document's response for its route and status (status documented, media
 * type, JSON body by the schema with no undocumented fields, Retry-After on 429/503).
 */
export interface ContractViolation {
  method: string;
  route: string;
  status: number;
  problem: string;
}

interface Documented {
  media: string[];
  validate?: ValidateFunction;
  /** Response headers the document names for this status (lower case). */
  headers: Set<string>;
}

/** Headers whose presence is part of a route's contract: each must be documented where it is sent. */
const ROUTE_HEADERS = ['location', 'content-disposition'];

const ROUTE_STATE = 'contractRoute';

/** Marks the route a request matched (called by the mounted handler). */
export const markRoute = (ctx: Context, def: RouteDef): void => {
  ctx.state[ROUTE_STATE] = def;
};

export function createContractChecker(routes: readonly RouteDef[]) {
  const doc = openApiDocument(routes) as {
    paths: Record<string, Record<string, { responses: Record<string, JsonSchema> }>>;
    components: { responses: Record<string, JsonSchema>; schemas: Record<string, JsonSchema> };
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc.components.schemas.Error, $id: 'crm:Error' });
  const cache = new Map<string, Map<number, Documented>>();
  // One compiled validator per distinct schema: many routes answer the same view (a booking's POST, reschedule, cancel
  // and GET), and compiling is the expensive part (hundreds of ms for a large view on a busy machine).
  const compiled = new Map<string, ValidateFunction>();
  const compile = (schema: JsonSchema): ValidateFunction => {
    const key = JSON.stringify(schema);
    let validate = compiled.get(key);
    if (!validate) compiled.set(key, (validate = ajv.compile(schema)));
    return validate;
  };

  const resolve = (res: JsonSchema): JsonSchema => {
    const ref = res.$ref;
    return typeof ref === 'string' ? (doc.components.responses[ref.split('/').pop()!] ?? {}) : res;
  };

  function documented(def: RouteDef): Map<number, Documented> {
    const key = `${def.method} ${def.path}`;
    let out = cache.get(key);
    if (out) return out;
    out = new Map();
    const op = doc.paths[openApiPath(def.path)]?.[def.method.toLowerCase()];
    for (const [status, raw] of Object.entries(op?.responses ?? {})) {
      const res = resolve(raw);
      const content = (res.content ?? {}) as Record<string, { schema?: JsonSchema }>;
      const media = Object.keys(content);
      const json = content['application/json']?.schema;
      let validate: ValidateFunction | undefined;
      if (json) {
        const schema = json.$ref === '#/components/schemas/Error' ? { $ref: 'crm:Error' } : json;
        validate = compile(schema);
      }
      const headers = new Set(Object.keys((res.headers ?? {}) as object).map((h) => h.toLowerCase()));
      out.set(Number(status), { media, validate, headers });
    }
    cache.set(key, out);
    return out;
  }

  const errorValidate = ajv.getSchema('crm:Error')!;

  /** The problem with an answer, or undefined when it is as documented. */
  function check(def: RouteDef | undefined, ctx: Context): string | undefined {
    const status = ctx.status;
    if (status === 304) return undefined;
    // A dependency that is down says when to retry; a missing configuration (not_configured) makes no such promise.
    const retryable =
      status === 429 || (status === 503 && (ctx.body as { code?: unknown } | null)?.code !== 'not_configured');
    if (retryable && !ctx.response.get('Retry-After')) return `${status} without Retry-After`;
    const type = (ctx.response.type || '').toLowerCase();
    if (!def) {
      // Before routing (body parser, input guard, unknown path): only the error envelope is promised.
      if (status < 400) return undefined;
      return validateJson(errorValidate, ctx.body, type);
    }
    // A route without a documented response is the registry test's failure, not each request's.
    if (!def.response) return undefined;
    const entry = documented(def).get(status);
    if (!entry) return `status ${status} is not documented`;
    const undocumented = ROUTE_HEADERS.filter((h) => ctx.response.get(h) && !entry.headers.has(h));
    if (undocumented.length) return `header ${undocumented.join(', ')} is not documented for ${status}`;
    if (!entry.media.length) {
      return ctx.body === undefined || ctx.body === null || ctx.body === '' ? undefined : 'documented without a body';
    }
    if (!entry.media.some((m) => m === type || m === '*/*' || (m.endsWith('/*') && type.startsWith(m.slice(0, -1)))))
      return `media type ${type || '(none)'} is not documented (${entry.media.join(', ')})`;
    if (type === 'application/json' && entry.validate) return validateJson(entry.validate, ctx.body, type);
    return undefined;
  }

  function validateJson(validate: ValidateFunction, body: unknown, type: string): string | undefined {
    if (type !== 'application/json') return `media type ${type || '(none)'} is not application/json`;
    let wire: unknown = body;
    if (Buffer.isBuffer(body)) wire = JSON.parse(body.toString('utf8'));
    else if (typeof body === 'string') wire = JSON.parse(body);
    else if (body && typeof (body as { pipe?: unknown }).pipe === 'function') return undefined;
    else wire = JSON.parse(JSON.stringify(body ?? null));
    if (validate(wire)) return undefined;
    return (validate.errors ?? [])
      .slice(0, 5)
      .map(
        (e) =>
          `${e.instancePath || '(body)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` '${String(e.params.additionalProperty)}'` : ''}`,
      )
      .join('; ');
  }

  return { check };
}

/** Koa middleware (outside the error middleware, so it sees rendered errors too). */
export function contractCheckMiddleware(routes: () => readonly RouteDef[], violationsFile?: string) {
  let checker: ReturnType<typeof createContractChecker> | undefined;
  return async (ctx: Context, next: Next): Promise<void> => {
    await next();
    checker ??= createContractChecker(routes());
    const def = ctx.state[ROUTE_STATE] as RouteDef | undefined;
    let problem: string | undefined;
    try {
      problem = checker.check(def, ctx);
    } catch (err) {
      problem = `unreadable body: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (!problem) return;
    const violation: ContractViolation = {
      method: ctx.method,
      route: def ? def.path : ctx.path,
      status: ctx.status,
      problem,
    };
    if (violationsFile) fs.appendFileSync(violationsFile, JSON.stringify(violation) + '\n');
    ctx.state.log?.error({ requestId: ctx.state.requestId, ...violation }, 'contract violation');
    ctx.status = 500;
    ctx.body = {
      error: `contract violation: ${violation.method} ${violation.route} answered ${violation.status}: ${problem}`,
      code: 'internal',
      requestId: ctx.state.requestId,
    };
  };
}
