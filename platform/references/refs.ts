/**
 * Reference fields, declared once on the zod schema: `ref('company')` is an object id that must
 * name a company of the caller's workspace. `collectRefs` walks a schema with the value it parsed
 * and yields every declared reference in it with its path; `assertReferences`
 * (references.service.ts) checks them all. The HTTP layer runs it on every route's parsed body
 * and query, so a route cannot store another workspace's id by forgetting a check.
 */
import { z } from 'zod';
import type { RefKind } from './ref-kinds';

// Pure (zod only): automation and sequence node schemas declare references too, and workflow code imports those.
const objectId = z.string().regex(/^[0-9a-f]{24}$/, { message: 'must be a 24-character hex id' });

export interface RefMeta {
  kind: RefKind;
}

/** Schemas marked as references. Zod registries inherit through clones (`.describe`, `.min`), not wrappers. */
export const references = z.registry<RefMeta>();

/** An object id naming a record of `kind` in the caller's workspace (checked after parsing). */
export function ref(kind: RefKind): z.ZodString;
export function ref<S extends z.ZodType>(kind: RefKind, base: S): S;
export function ref(kind: RefKind, base: z.ZodType = objectId): z.ZodType {
  // A fresh clone, so marking never changes a shared base schema such as `objectId`.
  return base.clone().register(references, { kind });
}

/** The declared kind of a schema (wrappers such as optional/nullable are not unwrapped here). */
export const refKindOf = (schema: z.ZodType): RefKind | undefined => references.get(schema)?.kind;

export interface FoundRef {
  /** Where the id is, e.g. `defaults.defaultTemplateId` or `recipients[2].personId`. */
  path: string;
  kind: RefKind;
  id: string;
}

interface Def {
  type: string;
  [key: string]: unknown;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (base: string, key: string | number): string =>
  typeof key === 'number' ? `${base}[${key}]` : base ? `${base}.${key}` : key;

/** Wrappers whose value is the inner schema's value. */
const INNER = new Set(['optional', 'nullable', 'default', 'prefault', 'catch', 'readonly', 'nonoptional']);

/**
 * Every declared reference in `value` (the output of `schema.parse`), with its path. Values that
 * are not strings (null, placeholders handled by the caller) are skipped; a union walks the first
 * option the value satisfies.
 */
export function collectRefs(schema: z.ZodType, value: unknown, path = '', out: FoundRef[] = []): FoundRef[] {
  if (value === undefined || value === null) return out;
  const kind = refKindOf(schema);
  if (kind) {
    if (typeof value === 'string' && value) out.push({ path, kind, id: value });
    return out;
  }
  const def = defOf(schema);
  if (INNER.has(def.type)) return collectRefs(def.innerType as z.ZodType, value, path, out);
  switch (def.type) {
    case 'object': {
      if (!isRecord(value)) return out;
      const shape = def.shape as Record<string, z.ZodType>;
      for (const [key, child] of Object.entries(shape)) collectRefs(child, value[key], join(path, key), out);
      const rest = def.catchall as z.ZodType | undefined;
      if (rest)
        for (const key of Object.keys(value)) if (!(key in shape)) collectRefs(rest, value[key], join(path, key), out);
      return out;
    }
    case 'array':
      if (Array.isArray(value)) value.forEach((v, i) => collectRefs(def.element as z.ZodType, v, join(path, i), out));
      return out;
    case 'tuple':
      if (Array.isArray(value))
        value.forEach((v, i) => {
          const item = (def.items as z.ZodType[])[i] ?? (def.rest as z.ZodType | undefined);
          if (item) collectRefs(item, v, join(path, i), out);
        });
      return out;
    case 'record':
      if (isRecord(value))
        for (const [key, v] of Object.entries(value)) collectRefs(def.valueType as z.ZodType, v, join(path, key), out);
      return out;
    case 'union': {
      const option = (def.options as z.ZodType[]).find((o) => o.safeParse(value).success);
      return option ? collectRefs(option, value, path, out) : out;
    }
    case 'intersection':
      collectRefs(def.left as z.ZodType, value, path, out);
      return collectRefs(def.right as z.ZodType, value, path, out);
    case 'pipe': {
      // The value is the pipe's output: walk the output side unless it is a bare transform.
      const outSide = def.out as z.ZodType;
      return collectRefs(defOf(outSide).type === 'transform' ? (def.in as z.ZodType) : outSide, value, path, out);
    }
    case 'lazy':
      return collectRefs((def.getter as () => z.ZodType)(), value, path, out);
    default:
      return out;
  }
}

export interface DeclaredField {
  /** Path with `[]` for array items and `*` for record values, e.g. `recipients[].personId`. */
  path: string;
  /** The declared kind, or undefined for a field that is not a reference. */
  kind: RefKind | undefined;
}

/**
 * Every named leaf field of a schema, with its declared kind (the reference test reads this to
 * find fields named like ids that declare nothing). Walks every union option.
 */
export function declaredFields(
  schema: z.ZodType,
  path = '',
  out: DeclaredField[] = [],
  seen = new Set<unknown>(),
): DeclaredField[] {
  const kind = refKindOf(schema);
  if (kind) {
    out.push({ path, kind });
    return out;
  }
  const def = defOf(schema);
  if (INNER.has(def.type)) return declaredFields(def.innerType as z.ZodType, path, out, seen);
  switch (def.type) {
    case 'object': {
      for (const [key, child] of Object.entries(def.shape as Record<string, z.ZodType>))
        declaredFields(child, join(path, key), out, seen);
      return out;
    }
    case 'array':
      return declaredFields(def.element as z.ZodType, `${path}[]`, out, seen);
    case 'tuple':
      for (const item of def.items as z.ZodType[]) declaredFields(item, `${path}[]`, out, seen);
      return out;
    case 'record':
      return declaredFields(def.valueType as z.ZodType, join(path, '*'), out, seen);
    case 'union':
      for (const o of def.options as z.ZodType[]) declaredFields(o, path, out, seen);
      return out;
    case 'intersection':
      declaredFields(def.left as z.ZodType, path, out, seen);
      return declaredFields(def.right as z.ZodType, path, out, seen);
    case 'pipe':
      declaredFields(def.in as z.ZodType, path, out, seen);
      return defOf(def.out as z.ZodType).type === 'transform'
        ? out
        : declaredFields(def.out as z.ZodType, path, out, seen);
    case 'lazy':
      // Recursive schemas (JSON values) are walked once.
      if (seen.has(def)) return out;
      seen.add(def);
      return declaredFields((def.getter as () => z.ZodType)(), path, out, seen);
    default:
      out.push({ path, kind: undefined });
      return out;
  }
}
