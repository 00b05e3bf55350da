import { z } from 'zod';
import type { RouteFactory } from '../app';
import { route, type RouteDef } from '../http/registry';
import { markdownReference } from '../docs/markdown';
import { docsQuery, resolveDocs, type DocsOutput } from '../docs/resolve';

const MARKDOWN = { 'Content-Type': 'text/markdown; charset=utf-8' };
const PUBLIC_REASON = 'the reference is public so clients can discover the API before they hold a key';
const CACHE_ENTRIES = 100;

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
      route({
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
        access: { public: PUBLIC_REASON },
        query: docsQuery,
        handler: async ({ query }) => {
          const out = docs(JSON.stringify(query), () => resolveDocs(allRoutes(), query, deps.config));
          if (out.kind === 'markdown') return { status: 200, body: out.text, headers: MARKDOWN };
          return { status: 200, body: out.body };
        },
      }),
      route({
        method: 'GET',
        path: '/api/v1/docs/markdown',
        section: 'Docs',
        summary:
          'The full reference as Markdown: conventions, then every section and endpoint with its parameters and body fields.',
        access: { public: PUBLIC_REASON },
        query: z.object({}),
        handler: async () => ({
          status: 200,
          body: markdown('all', () => markdownReference(allRoutes(), { limits: deps.config })),
          headers: MARKDOWN,
        }),
      }),
    ];
  };
