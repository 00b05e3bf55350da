import type { z } from 'zod';
import type { Ctx } from '../context';
import { validation } from '../errors';
import { refKindSpec, type RefKind } from './ref-kinds';
import { collectRefs, type FoundRef } from './refs';

export interface MissingRef extends FoundRef {
  error: string;
}

/**
 * The references among `refs` that name no record of the caller's workspace (the tenant filter
 * hides every other workspace's rows, so a foreign id is simply "no such record"). One query per
 * kind; ids that are not object ids cannot exist and are reported without a query.
 */
export async function missingRefs(ctx: Ctx, refs: readonly FoundRef[]): Promise<MissingRef[]> {
  const byKind = new Map<RefKind, Set<string>>();
  for (const r of refs) byKind.set(r.kind, (byKind.get(r.kind) ?? new Set()).add(r.id));
  const known = new Map<RefKind, Set<string>>();
  for (const [kind, ids] of byKind) {
    const spec = refKindSpec(kind);
    const wanted = [...ids];
    const where = spec.alternateKey
      ? { $or: [{ _id: { $in: wanted } }, { [spec.alternateKey]: { $in: wanted } }] }
      : { _id: { $in: wanted } };
    const fields = spec.alternateKey ? ['_id', spec.alternateKey] : ['_id'];
    const rows = (await ctx.em.find(spec.entity, where as never, { fields: fields as never })) as Record<
      string,
      unknown
    >[];
    known.set(kind, new Set(rows.flatMap((row) => fields.map((f) => String(row[f])))));
  }
  return refs
    .filter((r) => !known.get(r.kind)?.has(r.id))
    .map((r) => ({ ...r, error: `no ${refKindSpec(r.kind).label} with id ${r.id} in this workspace` }));
}

/** 400 naming every field whose reference does not exist in the caller's workspace; nothing is written. */
export async function assertRefsExist(ctx: Ctx, refs: readonly FoundRef[]): Promise<void> {
  if (!refs.length) return;
  const missing = await missingRefs(ctx, refs);
  if (!missing.length) return;
  const first = missing[0]!;
  throw validation(
    `${first.path}: ${first.error}`,
    missing.map((m) => ({ path: m.path, error: m.error })),
  );
}

/** Checks every reference field `schema` declares in `value` (its parsed output). */
export async function assertReferences(ctx: Ctx, schema: z.ZodType, value: unknown, prefix = ''): Promise<void> {
  await assertRefsExist(ctx, collectRefs(schema, value, prefix));
}
