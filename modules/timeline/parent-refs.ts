import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { resolveParent, type ParentValues } from './parents';
import { assertRefs, type RefKind } from './references';

type SlugInput = { customObjectSlug?: string | null };

/**
 * A task's or note's parent after a write (resolveParent), plus customObjectSlug, which exists only beside a
 * customObjectRecord parent; a parent that changed must be a record of the workspace.
 */
export async function resolveParentRef<K extends string>(
  ctx: Ctx,
  kinds: Record<K, RefKind>,
  current: (Partial<Record<NoInfer<K>, string | null>> & SlugInput) | null,
  input: Partial<Record<NoInfer<K>, string | null>> & SlugInput,
): Promise<{ values: ParentValues<K> & { customObjectSlug: string | null }; field: K }> {
  const fields = Object.keys(kinds) as K[];
  const parents = current ? (Object.fromEntries(fields.map((f) => [f, current[f] ?? null])) as ParentValues<K>) : null;
  const { values, field } = resolveParent(fields, parents, input);
  let slug: string | null = null;
  if (field === 'customObjectRecord') {
    const record = (values as Record<string, string | null>).customObjectRecord;
    const currentRecord = (current as Record<string, string | null> | null)?.customObjectRecord;
    slug = input.customObjectSlug ?? (current && currentRecord === record ? current.customObjectSlug : null) ?? null;
    if (!slug)
      throw validation('customObjectSlug: is required with customObjectRecord', [
        { path: 'customObjectSlug', error: 'is required' },
      ]);
  }
  if (!current || current[field] !== values[field])
    await assertRefs(ctx, [{ field, kind: kinds[field], id: values[field] }]);
  return { values: { ...values, customObjectSlug: slug }, field };
}
