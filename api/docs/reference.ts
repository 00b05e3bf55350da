import { ROLES } from '../../platform/context';
import { transitionsDoc, type TransitionsDoc } from '../../platform/shared/transitions';
import {
  errorStatuses,
  isEmptyResponse,
  isJsonResponse,
  isMediaResponse,
  isPublic,
  successResponses,
  type Method,
  type ResponseSpec,
  type RouteDef,
} from '../../platform/http/registry';
import { BASE_PATH, referenceHeader, type DocsLimits } from './conventions';
import { paramsJsonSchema, toJsonSchema, type JsonSchema } from '../../platform/http/json-schema';

export type AuthDoc = { public: true; reason: string } | { public: false; scopes: string[]; roles: string[] };

export interface EndpointSummary {
  method: Method;
  path: string;
  summary: string;
}

export interface EndpointDoc extends EndpointSummary {
  description?: string;
  auth: AuthDoc;
  /** JSON Schemas (request side) of the zod schemas that validate the request; null when none. */
  params: JsonSchema | null;
  query: JsonSchema | null;
  body: JsonSchema | null;
  /** Content types the body may use. */
  bodyFormats: string[];
  previewable: boolean;
  successStatus: number;
  /** State-transition tables the endpoint enforces (409 invalid_state outside them). */
  stateMachines?: TransitionsDoc[];
  /** JSON Schema of the success body, for routes that declare one. */
  response?: JsonSchema;
  /** Every documented success answer, by status. */
  responses: ResponseDoc[];
  /** Error statuses the route may give (body: the Error schema). */
  errors: number[];
}

export interface ResponseDoc {
  status: number;
  description: string;
  /** Media types of the body; none for an empty answer. */
  media: string[];
  /** JSON Schema of the JSON body, or of the body of other media (binary unless stated). */
  schema?: JsonSchema;
  /** Schema of each media type (the JSON one is `schema`). */
  content: Record<string, JsonSchema>;
  headers: string[];
}

const BINARY: JsonSchema = { type: 'string', format: 'binary' };

function describeStatus(status: number): string {
  if (status === 201) return 'Created';
  if (status === 202) return 'Accepted: the work goes on in the background';
  if (status === 204) return 'Success, no content';
  if (status >= 300 && status < 400) return 'Redirect';
  return 'Success';
}

export function responseDoc(status: number, spec: ResponseSpec): ResponseDoc {
  if (isMediaResponse(spec)) {
    const schema = spec.schema ?? BINARY;
    return {
      status,
      description: spec.description,
      media: [...spec.media],
      schema,
      content: Object.fromEntries(spec.media.map((m) => [m, schema])),
      headers: [...(spec.headers ?? [])],
    };
  }
  if (isEmptyResponse(spec))
    return { status, description: spec.description, media: [], content: {}, headers: [...(spec.headers ?? [])] };
  const json = isJsonResponse(spec) ? spec.json : spec;
  const other = (isJsonResponse(spec) ? spec.otherMedia : undefined) ?? [];
  const schema = toJsonSchema(json, 'output') ?? {};
  return {
    status,
    description: (isJsonResponse(spec) ? spec.description : undefined) ?? describeStatus(status),
    media: ['application/json', ...other],
    schema,
    content: { 'application/json': schema, ...Object.fromEntries(other.map((m) => [m, { type: 'string' }])) },
    headers: [...((isJsonResponse(spec) ? spec.headers : undefined) ?? [])],
  };
}

export interface Section {
  name: string;
  routes: RouteDef[];
}

const BODY_METHODS: readonly Method[] = ['POST', 'PUT', 'PATCH'];
export const RAW_BODY_FORMATS = ['application/json', 'application/x-www-form-urlencoded', 'text/plain'];

export const slug = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Sections in order of first appearance in the route list. */
export function groupSections(routes: readonly RouteDef[]): Section[] {
  const byName = new Map<string, Section>();
  for (const def of routes) {
    let section = byName.get(def.section);
    if (!section) byName.set(def.section, (section = { name: def.section, routes: [] }));
    section.routes.push(def);
  }
  return [...byName.values()];
}

/** Case-insensitive; `custom-objects` also finds "Custom objects". */
export function findSection(sections: readonly Section[], name: string): Section | undefined {
  const wanted = name.trim().toLowerCase();
  return sections.find((s) => s.name.toLowerCase() === wanted) ?? sections.find((s) => slug(s.name) === slug(wanted));
}

/** Path relative to its prefix (`/api/v1` or `/api`), params collapsed to `:` so names do not matter. */
function comparablePath(path: string): string {
  const rel = path.startsWith(BASE_PATH + '/') ? path.slice(BASE_PATH.length) : path.replace(/^\/api(?=\/)/, '');
  return rel.toLowerCase().replace(/(:[a-z0-9_]+|\{[a-z0-9_]+\})/g, ':');
}

/** First static segment after the prefix: the resource a path belongs to. */
export function resourceOf(path: string): string {
  return comparablePath(path).split('/').filter(Boolean)[0] ?? '/';
}

export function subsectionsOf(section: Section): string[] {
  const names = new Set<string>();
  for (const def of section.routes) {
    names.add(resourceOf(def.path));
    for (const kind of Object.values(def.resources ?? {})) names.add(kind);
  }
  return [...names];
}

/** A subsection is a resource kind or a path fragment matched on whole segments. */
export function matchesSubsection(def: RouteDef, fragment: string): boolean {
  const wanted = fragment.trim().toLowerCase();
  if (Object.values(def.resources ?? {}).some((kind) => kind.toLowerCase() === wanted)) return true;
  const frag = comparablePath(wanted.startsWith('/') ? wanted : '/' + wanted).replace(/^\/+|\/+$/g, '');
  if (!frag) return false;
  return `${comparablePath(def.path)}/`.includes(`/${frag}/`);
}

export function authDoc(def: RouteDef): AuthDoc {
  if (isPublic(def.access)) return { public: true, reason: def.access.public };
  return { public: false, scopes: [...def.access.scopes], roles: [...(def.access.roles ?? ROLES)] };
}

export function endpointSummary(def: RouteDef): EndpointSummary {
  return { method: def.method, path: def.path, summary: def.summary };
}

export function endpointDoc(def: RouteDef): EndpointDoc {
  const takesBody = BODY_METHODS.includes(def.method) || Boolean(def.body);
  const successStatus = def.successStatus ?? 200;
  const responses = [...successResponses(def)]
    .sort(([a], [b]) => a - b)
    .map(([status, spec]) => responseDoc(status, spec));
  const success = responses.find((r) => r.status === successStatus);
  return {
    ...endpointSummary(def),
    ...(def.description ? { description: def.description } : {}),
    auth: authDoc(def),
    params: paramsJsonSchema(def),
    query: toJsonSchema(def.query),
    body: toJsonSchema(def.body),
    bodyFormats: !takesBody ? [] : def.rawBody ? RAW_BODY_FORMATS : ['application/json'],
    previewable: Boolean(def.previewable),
    successStatus,
    ...(def.transitions?.length ? { stateMachines: def.transitions.map(transitionsDoc) } : {}),
    ...(success?.schema ? { response: success.schema } : {}),
    responses,
    errors: errorStatuses(def),
  };
}

/** Every state-transition table the routes of a section enforce, once each. */
export function sectionStateMachines(routes: readonly RouteDef[]): TransitionsDoc[] {
  const seen = new Map<string, TransitionsDoc>();
  for (const def of routes)
    for (const t of def.transitions ?? []) seen.set(`${t.resource}.${t.field}`, transitionsDoc(t));
  return [...seen.values()];
}

/** `GET /api/v1/docs` without parameters: conventions plus the list of sections. */
export function referenceIndex(routes: readonly RouteDef[], limits?: DocsLimits) {
  return {
    ...referenceHeader(limits),
    usage: {
      'index=true': 'every section with its endpoints (method, path, summary)',
      'section=<name>':
        'one section in full (case-insensitive); add subsection=<resource or path fragment> to narrow it',
      'full=true': 'every section in full',
      'type=openapi': 'an OpenAPI 3.1 document (of the whole API, or of the selected section)',
      'type=markdown': 'Markdown (also at /api/v1/docs/markdown)',
    },
    sections: groupSections(routes).map((s) => ({
      name: s.name,
      routes: s.routes.length,
      href: `${BASE_PATH}/docs?section=${encodeURIComponent(s.name)}`,
    })),
  };
}

export function sectionsIndex(sections: readonly Section[]) {
  return { sections: sections.map((s) => ({ name: s.name, endpoints: s.routes.map(endpointSummary) })) };
}

export function sectionsFull(sections: readonly Section[]) {
  return sections.map((s) => ({ name: s.name, endpoints: s.routes.map(endpointDoc) }));
}

export function fullReference(routes: readonly RouteDef[], limits?: DocsLimits) {
  return { ...referenceHeader(limits), sections: sectionsFull(groupSections(routes)) };
}
