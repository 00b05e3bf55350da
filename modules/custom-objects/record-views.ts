import type { Ctx } from '../../platform/context';
import { Company } from '../companies';
import { Deal } from '../deals';
import { notFound } from '../../platform/errors';
import { Lead } from '../leads';
import { Person } from '../people';
import { CustomObject, CustomObjectField, CustomObjectRecord } from './custom-object.entity';
import type { CustomObjectRecordView } from './custom-objects.views';
import { fieldsOf, getObject } from './custom-objects.service';

// What record reads and writes share: the event entity type, loading an object with its fields, the flat view.

export const RECORD_ENTITY_TYPE = 'custom_object_record';

export interface Loaded {
  object: CustomObject;
  fields: CustomObjectField[];
}

export async function load(ctx: Ctx, slug: string): Promise<Loaded> {
  const object = await getObject(ctx, slug);
  return { object, fields: await fieldsOf(ctx, object._id) };
}

/** Reads flatten field slugs to the top level (spec); `title` is the title field's value. */
export function serializeRecord(object: CustomObject, r: CustomObjectRecord): CustomObjectRecordView {
  return {
    _id: r._id,
    object: object.slug,
    recordNumber: r.recordNumber,
    title: object.titleField ? (r.data[object.titleField] ?? null) : null,
    ...r.data,
    avatar: r.avatar ?? null,
    workspace: r.workspaceId,
    createdBy: r.createdBy,
    updatedBy: r.updatedBy,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The native records a record_reference field may point at. */
export const NATIVE = { company: Company, person: Person, deal: Deal, lead: Lead } as const;

export async function getRecordOf(ctx: Ctx, object: CustomObject, id: string): Promise<CustomObjectRecord> {
  const record = await ctx.em.findOne(CustomObjectRecord, { _id: id, objectId: object._id });
  if (!record) throw notFound(`${object.singular} record`);
  return record;
}
