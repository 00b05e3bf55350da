import { validation } from '../../platform/errors';
import type { RefKind } from './references';

/** Parent fields of tasks and notes (body name → kind of record it points at). */
export const TASK_PARENT_FIELDS = {
  project: 'project',
  customObjectRecord: 'customObjectRecord',
  company: 'company',
  personRef: 'person',
  leadRef: 'lead',
  dealRef: 'deal',
} as const satisfies Record<string, RefKind>;

export const NOTE_PARENT_FIELDS = {
  company: 'company',
  personRef: 'person',
  leadRef: 'lead',
  dealRef: 'deal',
  customObjectRecord: 'customObjectRecord',
} as const satisfies Record<string, RefKind>;

/** The outbox and timeline entity type of a parent's kind: the kind in snake case (`custom_object_record`). */
export const parentEntityType = (kind: RefKind): string => kind.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export type ParentValues<K extends string> = Record<K, string | null>;

/**
 * Exactly one parent (pure rule). On create every field starts empty; on update a parent is kept
 * unless the input names parent fields: one non-null field moves the record there (the others are
 * cleared), two are refused, and clearing the current parent without a new one is refused.
 */
export function resolveParent<K extends string>(
  fields: readonly K[],
  current: ParentValues<K> | null,
  input: Partial<Record<K, string | null | undefined>>,
): { values: ParentValues<K>; field: K } {
  const given = fields.filter((f) => input[f] !== undefined && input[f] !== null && input[f] !== '');
  if (given.length > 1)
    throw validation(`exactly one parent is allowed, got ${given.join(' and ')}`, [
      { path: given[1]!, error: 'only one parent allowed' },
    ]);
  const empty = Object.fromEntries(fields.map((f) => [f, null])) as ParentValues<K>;
  if (given.length === 1) {
    const field = given[0]!;
    return { values: { ...empty, [field]: input[field] as string }, field };
  }
  const currentField = current ? fields.find((f) => current[f]) : undefined;
  const clearsCurrent = currentField !== undefined && input[currentField] !== undefined;
  if (!current || !currentField || clearsCurrent) {
    throw validation(`exactly one parent is required: one of ${fields.join(', ')}`, [
      { path: fields.join('|'), error: 'parent required' },
    ]);
  }
  return { values: { ...current }, field: currentField };
}
