import type { z } from 'zod';
import type { Ctx } from '../context';
import { notFound } from '../errors';
import { missingRefs, assertRefsExist } from '../references/references.service';
import { REF_KINDS, type RefKind } from '../references/ref-kinds';
import { collectRefs, declaredFields, type FoundRef } from '../references/refs';
import type { RouteDef } from './registry';

/** Whether a schema declares any reference field (walked once per schema, not per request). */
const declares = new WeakMap<z.ZodType, boolean>();
function hasRefs(schema: z.ZodType | undefined): schema is z.ZodType {
  if (!schema) return false;
  let known = declares.get(schema);
  if (known === undefined) {
    known = declaredFields(schema).some((f) => f.kind !== undefined);
    declares.set(schema, known);
  }
  return known;
}

const OBJECT_ID = /^[0-9a-f]{24}$/;
const isRefKind = (kind: string): kind is RefKind => Object.hasOwn(REF_KINDS, kind);

/**
 * Another workspace's record in the path answers 404 before its body is looked at (the
 * tenant-isolation rule), so the path ids are checked first when the body names references.
 */
async function assertPathRecords(ctx: Ctx, def: RouteDef, params: Record<string, unknown>): Promise<void> {
  const refs: FoundRef[] = [];
  for (const [param, kind] of Object.entries(def.resources ?? {})) {
    const id = params[param];
    const byKey = isRefKind(kind) && 'alternateKey' in REF_KINDS[kind];
    if (isRefKind(kind) && typeof id === 'string' && (OBJECT_ID.test(id) || byKey))
      refs.push({ path: param, kind, id });
  }
  const [missing] = refs.length ? await missingRefs(ctx, refs) : [];
  if (missing) throw notFound(missing.kind);
}

/**
 * One check for every route: the ids in the parsed query and body that their schemas declare as
 * references (`ref('<kind>')`) must name records of the caller's workspace, else 400 naming the
 * field before the handler runs, so nothing is written.
 */
export async function assertRouteReferences(
  ctx: Ctx,
  def: RouteDef,
  params: Record<string, unknown>,
  query: unknown,
  body: unknown,
): Promise<void> {
  const found: FoundRef[] = [];
  if (hasRefs(def.query)) collectRefs(def.query, query, '', found);
  if (!def.rawBody && hasRefs(def.body)) collectRefs(def.body, body, '', found);
  if (!found.length) return;
  await assertPathRecords(ctx, def, params);
  await assertRefsExist(ctx, found);
}
