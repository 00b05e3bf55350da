import { RESPONSE_HEADERS, type RouteDef } from '../../platform/http/registry';
import {
  API_TITLE,
  API_VERSION,
  ERROR_TABLE,
  RATE_LIMIT_HEADERS,
  RATE_LIMIT_HEADER_DOCS,
  referenceHeader,
  type DocsLimits,
} from './conventions';
import { stateMachineMarkdown } from './markdown';
import { SECTION_DESCRIPTIONS } from './sections';
import { endpointDoc, groupSections, type EndpointDoc } from './reference';
import { openApiPath, type JsonSchema } from '../../platform/http/json-schema';

const ERROR_REF = { $ref: '#/components/schemas/Error' };

const errorResponseName = (status: number): string => `Error${status}`;

function errorResponses(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const row of ERROR_TABLE) {
    out[errorResponseName(row.status)] = {
      description: `${row.meaning} (code: ${row.codes.join(', ')})`,
      content: { 'application/json': { schema: ERROR_REF } },
      ...(row.status === 429 || row.status === 503
        ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } }
        : {}),
    };
  }
  return out;
}

function components(): JsonSchema {
  const headers: Record<string, JsonSchema> = {};
  for (const [name, description] of Object.entries(RESPONSE_HEADERS))
    headers[name] = {
      description,
      schema:
        name === 'Retry-After'
          ? { type: 'integer' }
          : name === 'Idempotent-Replayed'
            ? { type: 'string', enum: ['true'] }
            : { type: 'string' },
    };
  for (const name of RATE_LIMIT_HEADERS)
    headers[name] = { description: RATE_LIMIT_HEADER_DOCS[name], schema: { type: 'integer' } };
  return {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: 'Workspace API key: `Authorization: Bearer <API_KEY>` (keys start with `sb_`).',
      },
      apiKey: {
        type: 'apiKey',
        in: 'query',
        name: 'api_key',
        description: 'The same API key as a query parameter, for tools that cannot set headers.',
      },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: { type: 'string', description: 'human-readable message' },
          code: {
            type: 'string',
            description: 'machine-readable code',
            enum: [...new Set(ERROR_TABLE.flatMap((r) => r.codes))],
          },
          details: {
            description:
              'validation (400): [{ path, error }] (graph references add nodeId and field); invalid_state (409): { current, requested, allowed }; otherwise as the message says',
            anyOf: [
              {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    path: { type: 'string' },
                    error: { type: 'string' },
                    nodeId: { type: 'string', description: 'automation or sequence graphs: the node (or trigger) id' },
                    field: { type: 'string', description: 'automation or sequence graphs: the field inside the node' },
                  },
                },
              },
              {
                type: 'object',
                properties: {
                  current: { description: 'the state the record is in' },
                  requested: { description: 'the state asked for' },
                  allowed: { type: 'array', description: 'states reachable from the current one' },
                },
              },
            ],
          },
          requestId: { type: 'string', description: '500 only: the request id to quote to support' },
        },
      },
    },
    responses: errorResponses(),
    headers,
  };
}

/** Properties of an object schema; for a union of objects, every member's (required only if required in all). */
function objectProperties(schema: JsonSchema | null): { props: Record<string, JsonSchema>; required: string[] } {
  const members = (schema?.anyOf ?? schema?.oneOf) as JsonSchema[] | undefined;
  if (!schema?.properties && Array.isArray(members)) {
    const parts = members.map((m) => objectProperties(m));
    return {
      props: Object.assign({}, ...parts.map((p) => p.props)) as Record<string, JsonSchema>,
      required: parts.length ? parts.map((p) => p.required).reduce((a, b) => a.filter((name) => b.includes(name))) : [],
    };
  }
  return {
    props: (schema?.properties ?? {}) as Record<string, JsonSchema>,
    required: (schema?.required as string[] | undefined) ?? [],
  };
}

function parameters(doc: EndpointDoc): JsonSchema[] {
  const out: JsonSchema[] = [];
  const add = (where: 'path' | 'query', schema: JsonSchema | null): void => {
    const { props, required } = objectProperties(schema);
    for (const [name, prop] of Object.entries(props)) {
      const { description, ...rest } = prop;
      out.push({
        name,
        in: where,
        required: where === 'path' || required.includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  };
  add('path', doc.params);
  add('query', doc.query);
  if (doc.previewable && !out.some((p) => p.name === 'preview' && p.in === 'query')) {
    out.push({
      name: 'preview',
      in: 'query',
      required: false,
      description: 'true: return { preview, current, proposed, diff } without saving',
      schema: { type: 'string', enum: ['true', 'false'] },
    });
  }
  return out;
}

function requestBody(doc: EndpointDoc): JsonSchema | undefined {
  if (!doc.bodyFormats.length) return undefined;
  const schema = doc.body ?? {};
  const required = Array.isArray(schema.required) && schema.required.length > 0;
  return { required, content: Object.fromEntries(doc.bodyFormats.map((type) => [type, { schema }])) };
}

function responses(doc: EndpointDoc): JsonSchema {
  const out: JsonSchema = {};
  // Every authenticated answer carries the rate-limit headers (spec: Rate limits); every answer X-Request-Id.
  const common = [...(doc.auth.public ? [] : RATE_LIMIT_HEADERS), 'X-Request-Id'];
  const documented = doc.responses.length
    ? doc.responses
    : [
        {
          status: doc.successStatus,
          description: 'Success (body not documented)',
          media: ['application/json'],
          content: { 'application/json': {} },
          headers: [],
        },
      ];
  for (const res of documented) {
    const names = [...common, ...res.headers];
    if (idempotent(doc) && res.status < 300) names.push('Idempotent-Replayed');
    out[String(res.status)] = {
      description:
        doc.previewable && res.status === doc.successStatus
          ? `${res.description}; in preview mode { data: { preview: true, current, proposed, diff } }`
          : res.description,
      ...(res.media.length
        ? { content: Object.fromEntries(Object.entries(res.content).map(([type, schema]) => [type, { schema }])) }
        : {}),
      headers: Object.fromEntries([...new Set(names)].map((h) => [h, { $ref: `#/components/headers/${h}` }])),
    };
  }
  for (const status of doc.errors)
    out[String(status)] = { $ref: `#/components/responses/${errorResponseName(status)}` };
  return out;
}

const idempotent = (doc: EndpointDoc): boolean => doc.method === 'POST' && !doc.auth.public;

const IDEMPOTENCY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the first response is stored for 24 h and replayed (header Idempotent-Replayed: true) for the same request; see conventions.idempotency',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
};

function operationId(doc: EndpointDoc, taken: Set<string>): string {
  const words = doc.path
    .split('/')
    .filter(Boolean)
    .map((seg) => (seg.startsWith(':') ? `By-${seg.slice(1)}` : seg))
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  const base = doc.method.toLowerCase() + words.join('');
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  taken.add(id);
  return id;
}

function operation(doc: EndpointDoc, section: string, taken: Set<string>): JsonSchema {
  const body = requestBody(doc);
  const security = doc.auth.public ? [] : [{ bearer: doc.auth.scopes }, { apiKey: doc.auth.scopes }];
  const authNote = doc.auth.public
    ? `No authentication (${doc.auth.reason}).`
    : `Scopes: ${doc.auth.scopes.join(', ') || 'any valid key'}. Roles: ${doc.auth.roles.join(', ')}.`;
  return {
    operationId: operationId(doc, taken),
    tags: [section],
    summary: doc.summary,
    description: [
      doc.description,
      authNote,
      ...(doc.stateMachines ?? []).map((sm) => stateMachineMarkdown(sm).join('\n').trim()),
    ]
      .filter(Boolean)
      .join('\n\n'),
    parameters: idempotent(doc) ? [...parameters(doc), IDEMPOTENCY_PARAMETER] : parameters(doc),
    ...(body ? { requestBody: body } : {}),
    responses: responses(doc),
    security,
    'x-auth': doc.auth,
    'x-previewable': doc.previewable,
    ...(doc.stateMachines ? { 'x-state-machines': doc.stateMachines } : {}),
  };
}

/** Drops the error responses and headers no operation refers to (redocly: no-unused-components). */
function usedComponents(all: JsonSchema, paths: Record<string, unknown>): JsonSchema {
  const refsIn = (node: unknown): Set<string> =>
    new Set(JSON.stringify(node).match(/#\/components\/[A-Za-z]+\/[A-Za-z0-9-]+/g) ?? []);
  const keep = (kind: string, refs: Set<string>): Record<string, JsonSchema> =>
    Object.fromEntries(
      Object.entries(all[kind] as Record<string, JsonSchema>).filter(([name]) =>
        refs.has(`#/components/${kind}/${name}`),
      ),
    );
  const responses = keep('responses', refsIn(paths));
  // Error responses refer to headers (Retry-After) too.
  const headers = keep('headers', new Set([...refsIn(paths), ...refsIn(responses)]));
  return { ...all, responses, headers };
}

/** An OpenAPI 3.1 document of the given routes, from the same zod schemas that validate requests. */
export function openApiDocument(routes: readonly RouteDef[], limits?: DocsLimits): JsonSchema {
  const header = referenceHeader(limits);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const taken = new Set<string>();
  const sections = groupSections(routes);
  for (const section of sections) {
    for (const def of section.routes) {
      const doc = endpointDoc(def);
      const item = (paths[openApiPath(def.path)] ??= {});
      item[def.method.toLowerCase()] = operation(doc, section.name, taken);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: API_TITLE,
      version: API_VERSION,
      description:
        `Workspace-scoped CRM REST API. Base path ${header.basePath}. Errors are { error, code?, details? }. ` +
        `Rate limits per key: ${header.conventions.rateLimits.perMinute}/min and ${header.conventions.rateLimits.perDay}/day. ` +
        'Full conventions: GET /api/v1/docs.',
    },
    servers: [{ url: '/' }],
    tags: sections.map((s) => ({
      name: s.name,
      ...(SECTION_DESCRIPTIONS[s.name] ? { description: SECTION_DESCRIPTIONS[s.name] } : {}),
    })),
    components: usedComponents(components(), paths),
    paths,
    'x-conventions': header.conventions,
  };
}
