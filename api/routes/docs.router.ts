import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import { publicRoute } from '../../platform/http/crud';
import type { RouteDef } from '../../platform/http/registry';
import { openObjectView } from '../../platform/shared/views';
import { markdownReference } from '../docs/markdown';
import { docsQuery, resolveDocs, type DocsOutput } from '../docs/resolve';

const MARKDOWN = { 'Content-Type': 'text/markdown; charset=utf-8' };
const PUBLIC_REASON = 'the reference is public so clients can discover the API before they hold a key';
const CACHE_ENTRIES = 100;

// Views of the self-description (api/docs/reference.ts and openapi.ts build these shapes).
const jsonSchemaView = openObjectView.describe('JSON Schema');
const methodView = z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const endpointSummaryView = z.object({ method: methodView, path: z.string(), summary: z.string() });
const transitionsDocView = z.object({
  resource: z.string(),
  field: z.string(),
  states: z.array(z.string()),
  transitions: z.array(z.object({ from: z.string(), to: z.array(z.string()), requires: z.string().optional() })),
  notes: z.array(z.string()),
});
const responseDocView = z.object({
  status: z.number().int(),
  description: z.string(),
  media: z.array(z.string()).describe('media types of the body; none for an empty answer'),
  schema: jsonSchemaView.optional().describe('schema of the JSON body (or of other media)'),
  content: z.record(z.string(), jsonSchemaView).describe('media type → schema'),
  headers: z.array(z.string()),
});
const endpointDocView = endpointSummaryView.extend({
  description: z.string().optional(),
  auth: z.union([
    z.object({ public: z.literal(true), reason: z.string() }),
    z.object({ public: z.literal(false), scopes: z.array(z.string()), roles: z.array(z.string()) }),
  ]),
  params: jsonSchemaView.nullable(),
  query: jsonSchemaView.nullable(),
  body: jsonSchemaView.nullable(),
  bodyFormats: z.array(z.string()),
  previewable: z.boolean(),
  successStatus: z.number().int(),
  stateMachines: z.array(transitionsDocView).optional(),
  response: jsonSchemaView.optional().describe('schema of the success body'),
  responses: z.array(responseDocView),
  errors: z.array(z.number().int()),
});
const sectionFullView = z.object({ name: z.string(), endpoints: z.array(endpointDocView) });
const referenceHeaderFields = {
  title: z.string(),
  version: z.string(),
  basePath: z.string(),
  authentication: openObjectView.describe('schemes, key prefix, scopes, roles and rules'),
  conventions: openObjectView.describe('envelopes, pagination, errors, rate limits, preview, idempotency, ids, dates'),
};
const docsJsonView = z.union([
  z
    .object({
      ...referenceHeaderFields,
      usage: z.record(z.string(), z.string()),
      sections: z.array(z.object({ name: z.string(), routes: z.number().int(), href: z.string() })),
    })
    .describe('no parameters: conventions and the section list'),
  z
    .object({ sections: z.array(z.object({ name: z.string(), endpoints: z.array(endpointSummaryView) })) })
    .describe('index=true'),
  z
    .object({
      section: z.string(),
      subsection: z.string().optional(),
      endpoints: z.array(endpointDocView),
      stateMachines: z.array(transitionsDocView).optional(),
    })
    .describe('section=<name>'),
  z.object({ ...referenceHeaderFields, sections: z.array(sectionFullView) }).describe('full=true'),
]);
const openApiView = z
  .object({
    openapi: z.literal('3.1.0'),
    info: z.object({ title: z.string(), version: z.string(), description: z.string() }),
    servers: z.array(z.object({ url: z.string() })),
    tags: z.array(z.object({ name: z.string(), description: z.string().optional() })),
    components: openObjectView,
    paths: z.record(z.string(), z.record(z.string(), openObjectView)).describe('path → method → operation'),
    'x-conventions': openObjectView,
  })
  .describe('type=openapi: an OpenAPI 3.1 document, not wrapped in data');
const markdownMedia = 'text/markdown';

/** Small insertion-ordered cache: the route list is fixed once assembled and these endpoints are unauthenticated. */
function memo<T>(): (key: string, build: () => T) => T {
  const cache = new Map<string, T>();
  return (key, build) => {
    if (cache.has(key)) return cache.get(key) as T;
    const value = build();
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(key, value);
    return value;
  };
}

/**
 * The self-description. It documents every route, itself included, so it takes a getter for the
 * assembled list (read at request time: the list is only complete after all factories ran).
 */
export const docsRoutes =
  (allRoutes: () => readonly RouteDef[]): RouteFactory =>
  (deps) => {
    const docs = memo<DocsOutput>();
    const markdown = memo<string>();
    return [
      publicRoute({
        method: 'GET',
        path: '/api/v1/docs',
        section: 'Docs',
        summary:
          'Machine-readable reference of this API: conventions and section index, one section, every section, or OpenAPI 3.1.',
        description:
          'Without parameters: title, version, authentication, conventions and the sections with their route counts. ' +
          '`index=true`: every section with its endpoints (method, path, summary). `section=<name>` (case-insensitive): that section in full, ' +
          'with path/query/body as JSON Schema; `subsection=<resource or path fragment>` narrows it. `full=true`: every section in full. ' +
          '`type=openapi`: an OpenAPI 3.1 document (not wrapped in `data`); `type=markdown`: Markdown. Unknown section: 404 listing the valid ones.',
        reason: PUBLIC_REASON,
        query: docsQuery,
        response: {
          json: z.union([z.object({ data: docsJsonView }), openApiView]),
          description: 'JSON: `{ data }` (reference, index, section or full), or the OpenAPI document (type=openapi)',
          otherMedia: [markdownMedia],
        },
        handler: async ({ query }) => {
          const out = docs(JSON.stringify(query), () => resolveDocs(allRoutes(), query, deps.config));
          if (out.kind === 'markdown') return { status: 200, body: out.text, headers: MARKDOWN };
          return { status: 200, body: out.body };
        },
      }),
      publicRoute({
        method: 'GET',
        path: '/api/v1/docs/markdown',
        section: 'Docs',
        summary:
          'The full reference as Markdown: conventions, then every section and endpoint with its parameters and body fields.',
        reason: PUBLIC_REASON,
        query: z.object({}),
        response: {
          media: [markdownMedia],
          description: 'the full reference as Markdown',
          schema: { type: 'string' },
        },
        handler: async () => ({
          status: 200,
          body: markdown('all', () => markdownReference(allRoutes(), { limits: deps.config })),
          headers: MARKDOWN,
        }),
      }),
    ];
  };
