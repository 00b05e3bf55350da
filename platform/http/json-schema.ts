import { z } from 'zod';
import type { RouteDef } from './registry';

export type JsonSchema = { [key: string]: unknown };

export interface FieldRow {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

const SAFE_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** Drops `$schema` and zod's ±MAX_SAFE_INTEGER bounds on .int(): noise to a reader. */
function tidy(node: unknown, top = true): unknown {
  if (Array.isArray(node)) return node.map((item) => tidy(item, false));
  if (!node || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (top && key === '$schema') continue;
    if ((key === 'minimum' || key === 'maximum') && typeof value === 'number' && SAFE_BOUNDS.has(value)) continue;
    out[key] = tidy(value, false);
  }
  return out;
}

/**
 * The request-side JSON Schema of a zod schema (the same schema that validates requests).
 * A schema zod cannot express yields a permissive schema that says so, never an error page.
 */
export function toJsonSchema(schema: z.ZodType | undefined, io: 'input' | 'output' = 'input'): JsonSchema | null {
  if (!schema) return null;
  try {
    return tidy(z.toJSONSchema(schema, { io, unrepresentable: 'any' })) as JsonSchema;
  } catch (err) {
    return {
      description: `not representable as JSON Schema (${err instanceof Error ? err.message : String(err)})`,
      'x-unrepresentable': true,
    };
  }
}

/** `:name` tokens of a Koa path, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1] as string);
}

/** `/a/:id` → `/a/{id}` (OpenAPI path template). */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Path-parameter schema: the route's zod schema, plus a string entry for any token it leaves out. */
export function paramsJsonSchema(def: Pick<RouteDef, 'path' | 'params' | 'resources'>): JsonSchema | null {
  const names = pathParamNames(def.path);
  const fromZod = toJsonSchema(def.params);
  if (!names.length && !fromZod) return null;
  const base: JsonSchema = fromZod && fromZod.type === 'object' ? { ...fromZod } : { type: 'object' };
  const properties = { ...((base.properties as Record<string, JsonSchema> | undefined) ?? {}) };
  for (const name of names) {
    const resource = def.resources?.[name];
    const prop: JsonSchema = properties[name] ?? { type: 'string' };
    properties[name] = resource && prop.description === undefined ? { ...prop, description: `${resource} id` } : prop;
  }
  return { ...base, properties, required: names };
}

export function typeLabel(schema: unknown): string {
  if (!schema || typeof schema !== 'object') return 'any';
  const s = schema as JsonSchema;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in s) return JSON.stringify(s.const);
  if (typeof s.$ref === 'string') return s.$ref.split('/').pop() ?? 'object';
  const union = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(union)) return [...new Set(union.map(typeLabel))].join(' | ');
  if (Array.isArray(s.allOf)) return 'object';
  const type = s.type;
  if (Array.isArray(type)) return type.join(' | ');
  if (type === 'array') return `${typeLabel(s.items)}[]`;
  if (type === 'string' && typeof s.format === 'string') return `string (${s.format})`;
  if (type === 'object' && !s.properties && s.additionalProperties !== undefined) return 'object (map)';
  return typeof type === 'string' ? type : 'any';
}

function notes(s: JsonSchema): string[] {
  const out: string[] = [];
  if (s.default !== undefined) out.push(`default ${JSON.stringify(s.default)}`);
  if (typeof s.minimum === 'number' && typeof s.maximum === 'number') out.push(`${s.minimum}–${s.maximum}`);
  else if (typeof s.minimum === 'number') out.push(`min ${s.minimum}`);
  else if (typeof s.maximum === 'number') out.push(`max ${s.maximum}`);
  if (typeof s.minLength === 'number') out.push(`min length ${s.minLength}`);
  if (typeof s.maxLength === 'number') out.push(`max length ${s.maxLength}`);
  if (typeof s.maxItems === 'number') out.push(`max ${s.maxItems} items`);
  // A format (email, uuid, …) says it better than the regex zod derives from it.
  if (typeof s.pattern === 'string' && typeof s.format !== 'string') out.push(`pattern \`${s.pattern}\``);
  // Nullable/optional forms are unions: report the members' constraints too.
  const union = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union))
    for (const member of union) for (const note of notes(member)) if (!out.includes(note)) out.push(note);
  return out;
}

function objectShape(s: JsonSchema): { properties: Record<string, JsonSchema>; required: string[] } | undefined {
  if (s.properties && typeof s.properties === 'object') {
    return {
      properties: s.properties as Record<string, JsonSchema>,
      required: (s.required as string[] | undefined) ?? [],
    };
  }
  return undefined;
}

const MAX_DEPTH = 3;

/** Flat field list of an object schema (nested objects as `a.b`, arrays of objects as `a[].b`). */
export function fieldRows(schema: JsonSchema | null, prefix = '', depth = 0): FieldRow[] {
  if (!schema) return [];
  const shape = objectShape(schema);
  if (!shape) {
    if (depth > 0) return [];
    const description = typeof schema.description === 'string' ? schema.description : '';
    return [{ name: '(whole value)', type: typeLabel(schema), required: true, description }];
  }
  const rows: FieldRow[] = [];
  for (const [name, prop] of Object.entries(shape.properties)) {
    const full = prefix + name;
    const description = [typeof prop.description === 'string' ? prop.description : '', ...notes(prop)]
      .filter(Boolean)
      .join('; ');
    rows.push({ name: full, type: typeLabel(prop), required: shape.required.includes(name), description });
    if (depth + 1 >= MAX_DEPTH) continue;
    if (objectShape(prop)) rows.push(...fieldRows(prop, `${full}.`, depth + 1));
    else if (
      prop.type === 'array' &&
      prop.items &&
      typeof prop.items === 'object' &&
      objectShape(prop.items as JsonSchema)
    ) {
      rows.push(...fieldRows(prop.items as JsonSchema, `${full}[].`, depth + 1));
    }
  }
  return rows;
}
