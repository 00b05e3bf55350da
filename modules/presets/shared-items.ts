import type { EntityName, FilterQuery } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { deleteWithEvent, emitCreate, updateWithEvent, type PayloadFor } from '../../platform/shared/changes';
import { findPage, toPlain, type PageRequest } from '../../platform/shared/listing';
import { createRecord } from '../../platform/shared/records';
import { loadVisible, newSharing, sharingPatch, visibleWhere, type Shared } from './sharing';

/** The kinds of shared items (their outbox entity type; events `<kind>_created`, `_updated`, `_deleted`). */
type SharedKind = 'dashboard_layout' | 'filter_preset';

interface SharedItem extends Shared {
  _id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

type SharingInput = Partial<Pick<Shared, 'visibility' | 'userIds' | 'groupIds'>>;

/** One kind of item the caller shares with the workspace, a user or nobody (sharing.ts): what its service needs. */
export interface SharedItemSpec<T extends SharedItem, I extends SharingInput & { name?: string }> {
  entity: EntityName<T>;
  /** How a 404 or 403 names one: "filter preset". */
  what: string;
  kind: SharedKind;
  /** The item's key in its events' payloads: `filterPreset`. */
  payloadKey: string;
  /** The kind's own properties, serialized between `name` and the sharing properties. */
  fields: readonly (keyof T & string)[];
  /** A new item's own properties from the create body, defaults filled. */
  created(input: I): Record<string, unknown>;
  /** An update's own properties from the body (undefined: unchanged). */
  patch(input: I): Partial<T>;
}

/**
 * The service of a kind of shared item (filter presets, dashboard layouts): serialize, get (visible or 404), list
 * (visible ones, newest first), create (owned by the caller), update and delete (owner or owner/admin, else 403),
 * each write with its event in the same flush.
 */
export function sharedItemService<T extends SharedItem, I extends SharingInput & { name?: string }>(
  spec: SharedItemSpec<T, I>,
) {
  const fields = [
    '_id',
    'name',
    ...spec.fields,
    'visibility',
    'userIds',
    'groupIds',
    'ownerId',
    'createdAt',
    'updatedAt',
  ] as (keyof T & string)[];
  const serialize = (item: T): Record<string, unknown> => toPlain(item, fields);
  const load = (ctx: Ctx, id: string, opts: { change?: boolean } = {}): Promise<T> =>
    loadVisible(ctx, spec.what, () => ctx.em.findOne(spec.entity, { _id: id } as FilterQuery<T>), opts);
  // Both kinds' events carry `{ <payloadKey>: item }` (+ `changes` when updated); their names are checked by tsc.
  const payload = (item: T) => ({ [spec.payloadKey]: serialize(item) }) as PayloadFor<`${SharedKind}_created`>;
  return {
    serialize,
    get: (ctx: Ctx, id: string): Promise<T> => load(ctx, id),

    /** The items the caller may see (and `where`), newest first. */
    async list(ctx: Ctx, query: PageRequest, where: Record<string, unknown> = {}) {
      const filter = { ...visibleWhere(ctx.actor), ...where } as FilterQuery<T>;
      const { items, total } = await findPage(ctx.em, spec.entity, filter, query, { createdAt: 'desc' });
      return { items: items.map(serialize), total };
    },

    async create(ctx: Ctx, input: I & { name: string }): Promise<Record<string, unknown>> {
      const sharing = await newSharing(ctx, input);
      const item = createRecord(ctx, spec.entity, {
        name: input.name,
        ...spec.created(input),
        ...sharing,
        ownerId: ctx.actor.userId,
      } as unknown as Parameters<typeof createRecord<T>>[2]);
      await emitCreate(ctx, item, { type: `${spec.kind}_created`, entityType: spec.kind, payload: payload(item) });
      return serialize(item);
    },

    async update(ctx: Ctx, id: string, input: I): Promise<Record<string, unknown>> {
      const item = await load(ctx, id, { change: true });
      const sharing = await sharingPatch(ctx, input, item);
      await updateWithEvent(ctx, item, { name: input.name, ...spec.patch(input), ...sharing } as Partial<T>, {
        type: `${spec.kind}_updated`,
        entityType: spec.kind,
        payload: (changes) => ({ ...payload(item), changes }),
      });
      return serialize(item);
    },

    async remove(ctx: Ctx, id: string): Promise<void> {
      const item = await load(ctx, id, { change: true });
      await deleteWithEvent(ctx, item, {
        type: `${spec.kind}_deleted`,
        entityType: spec.kind,
        payload: payload(item),
      });
    },
  };
}
