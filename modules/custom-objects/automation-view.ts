import type { EntityManager } from '@mikro-orm/postgresql';
import { CustomObject, CustomObjectField, CustomObjectRecord } from './custom-object.entity';
import type { RecordType } from '../../platform/shared/record-types';

const OBJECT_ID = /^[0-9a-f]{24}$/;

/** A custom object by id or slug (automation configs name it either way), in the EM's workspace. */
export async function findObjectByIdOrSlug(em: EntityManager, idOrSlug: string): Promise<CustomObject | null> {
  const key = idOrSlug.trim();
  if (!key) return null;
  return (
    (OBJECT_ID.test(key) ? await em.findOne(CustomObject, { _id: key }) : null) ??
    (await em.findOne(CustomObject, { slug: key }))
  );
}

/** A record as automations see it (`custom_record` namespace, lookup rows): field slugs flattened like API reads. */
export function automationRecordView(
  object: Pick<CustomObject, '_id' | 'slug' | 'titleField'>,
  r: CustomObjectRecord,
): Record<string, unknown> {
  return {
    _id: r._id,
    object: object.slug,
    customObjectId: object._id,
    recordNumber: r.recordNumber,
    title: object.titleField ? (r.data[object.titleField] ?? null) : null,
    ...r.data,
    createdBy: r.createdBy,
    updatedBy: r.updatedBy,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The record, its object, and the native records its reference fields point at (company, person, deal, lead). */
export async function loadRecordForAutomation(
  em: EntityManager,
  id: string,
): Promise<{
  view: Record<string, unknown>;
  object: CustomObject;
  links: Partial<Record<RecordType, string>>;
  ownerId: string;
} | null> {
  const record = await em.findOne(CustomObjectRecord, { _id: id });
  if (!record) return null;
  const object = await em.findOne(CustomObject, { _id: record.objectId });
  if (!object) return null;
  const fields = await em.find(CustomObjectField, {
    objectId: object._id,
    type: 'record_reference',
    referenceType: 'native',
  });
  const links: Partial<Record<RecordType, string>> = {};
  for (const f of fields) {
    const value = record.data[f.slug];
    if (f.nativeEntity && typeof value === 'string' && !links[f.nativeEntity]) links[f.nativeEntity] = value;
  }
  return { view: automationRecordView(object, record), object, links, ownerId: record.createdBy };
}
