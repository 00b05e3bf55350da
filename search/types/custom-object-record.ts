import type { EntityManager } from '@mikro-orm/postgresql';
import { CustomObject, CustomObjectField, CustomObjectRecord } from '../../modules/custom-objects';
import { defineSearchType } from './definition';

/** Field types indexed when an object names no `searchableFields`. */
export const TEXT_LIKE_TYPES = ['text', 'email', 'phone', 'url', 'select'];

interface ObjectInfo {
  object: CustomObject;
  indexed: string[];
}
type Prepared = Map<string, ObjectInfo>;

/**
 * The field slugs whose values go into the index: the object's `searchableFields` (or its text-like
 * fields when none are set), never one of its `piiFields`.
 */
export function indexedSlugs(
  object: Pick<CustomObject, 'searchableFields' | 'piiFields'>,
  fields: Array<Pick<CustomObjectField, 'slug' | 'type'>>,
): string[] {
  const pii = new Set(object.piiFields);
  const chosen = object.searchableFields.length
    ? fields.filter((f) => object.searchableFields.includes(f.slug))
    : fields.filter((f) => TEXT_LIKE_TYPES.includes(f.type));
  return chosen.map((f) => f.slug).filter((s) => !pii.has(s));
}

const text = (v: unknown): string[] => {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  if (Array.isArray(v)) return v.flatMap(text);
  return [];
};

/** Display title: the title field's value unless it is a PII field, else "<singular> #<n>". */
export function recordDisplayTitle(
  object: Pick<CustomObject, 'titleField' | 'piiFields' | 'singular'>,
  r: Pick<CustomObjectRecord, 'data' | 'recordNumber'>,
): string {
  const value =
    object.titleField && !object.piiFields.includes(object.titleField) ? r.data[object.titleField] : undefined;
  return typeof value === 'string' || typeof value === 'number'
    ? String(value)
    : `${object.singular} #${r.recordNumber}`;
}

async function prepare(em: EntityManager, rows: CustomObjectRecord[]): Promise<Prepared> {
  const ids = [...new Set(rows.map((r) => r.objectId))];
  const out: Prepared = new Map();
  if (!ids.length) return out;
  const [objects, fields] = await Promise.all([
    em.find(CustomObject, { _id: { $in: ids } }),
    em.find(CustomObjectField, { objectId: { $in: ids } }),
  ]);
  for (const object of objects)
    out.set(object._id, {
      object,
      indexed: indexedSlugs(
        object,
        fields.filter((f) => f.objectId === object._id),
      ),
    });
  return out;
}

const infoOf = (prepared: unknown, r: CustomObjectRecord): ObjectInfo | undefined =>
  (prepared as Prepared | undefined)?.get(r.objectId);

/**
 * Records of every custom object in one index; `objectId` filters to the objects of a query.
 * Only indexed field values (never PII fields) reach Meilisearch.
 */
export const customObjectRecordSearch = defineSearchType<CustomObjectRecord>({
  type: 'custom_object_record',
  entity: CustomObjectRecord,
  standalone: true,
  title: (r, prepared) => {
    const info = infoOf(prepared, r);
    return info ? recordDisplayTitle(info.object, r) : `#${r.recordNumber}`;
  },
  titleFields: ['data'],
  subtitle: (r, _names, prepared) => infoOf(prepared, r)?.object.singular ?? null,
  fields: [
    { attribute: 'title', value: () => null },
    {
      attribute: 'values',
      value: (r, _names, prepared) => (infoOf(prepared, r)?.indexed ?? []).flatMap((slug) => text(r.data[slug])),
    },
    { attribute: 'recordNumber', value: (r) => String(r.recordNumber), exact: true },
  ],
  prepare: prepare as (em: EntityManager, rows: CustomObjectRecord[]) => Promise<unknown>,
  parents: [
    {
      entityType: 'custom_object_definition',
      events: ['custom_object_definition_updated', 'custom_object_definition_deleted'],
      property: 'objectId',
      idAttribute: 'objectId',
    },
  ],
});
