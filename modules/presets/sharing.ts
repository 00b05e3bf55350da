import type { Actor } from '../../platform/context';
import type { Ctx } from '../../platform/context';
import { forbidden, notFound, validation } from '../../platform/errors';
import { User } from '../workspaces';

/** Who sees a shared item (filter presets, dashboard layouts). */
export const VISIBILITIES = ['workspace', 'private', 'group', 'user'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

export interface Shared {
  ownerId: string;
  visibility: Visibility;
  userIds: string[];
  groupIds: string[];
}

/**
 * workspace → everyone; private → owner; user → owner + userIds; group → owner + members of
 * groupIds. No user groups exist yet, so a group item is visible to its owner only.
 */
export function canSee(actor: Pick<Actor, 'userId'>, item: Shared): boolean {
  if (item.ownerId === actor.userId || item.visibility === 'workspace') return true;
  if (item.visibility === 'user') return item.userIds.includes(actor.userId);
  return false;
}

/** The same rule as a query condition, for lists. */
export function visibleWhere(actor: Pick<Actor, 'userId'>): Record<string, unknown> {
  return {
    $or: [
      { visibility: 'workspace' },
      { ownerId: actor.userId },
      { visibility: 'user', userIds: { $contains: [actor.userId] } },
    ],
  };
}

/** Owner, or an owner/admin role, may change or delete an item they can see. */
export function canChange(actor: Pick<Actor, 'userId' | 'role'>, item: Shared): boolean {
  return item.ownerId === actor.userId || actor.role === 'owner' || actor.role === 'admin';
}

/** Loads a visible item or 404s (an invisible item is indistinguishable from a missing one). */
export async function loadVisible<T extends Shared>(
  ctx: Ctx,
  what: string,
  find: () => Promise<T | null>,
  opts: { change?: boolean } = {},
): Promise<T> {
  const item = await find();
  if (!item || !canSee(ctx.actor, item)) throw notFound(what);
  if (opts.change && !canChange(ctx.actor, item))
    throw forbidden(`only the ${what}'s owner or an owner/admin may change it`);
  return item;
}

/** Sharing input after merge: `user` needs userIds that are users of this workspace; `group` needs groupIds. */
export async function assertSharing(
  ctx: Ctx,
  item: Pick<Shared, 'visibility' | 'userIds' | 'groupIds'>,
): Promise<void> {
  if (item.visibility === 'user' && !item.userIds.length)
    throw validation('userIds: at least one user is required when visibility is "user"');
  if (item.visibility === 'group' && !item.groupIds.length)
    throw validation('groupIds: at least one group is required when visibility is "group"');
  if (!item.userIds.length) return;
  const found = await ctx.em.find(User, { _id: { $in: item.userIds } }, { fields: ['_id'] });
  const known = new Set(found.map((u) => u._id));
  const missing = item.userIds.filter((id) => !known.has(id));
  if (missing.length) throw validation(`userIds: no user with id ${missing.join(', ')}`, { missing });
}

type Sharing = Pick<Shared, 'visibility' | 'userIds' | 'groupIds'>;

/** A new item's sharing (private unless the input says otherwise), checked. */
export async function newSharing(ctx: Ctx, input: Partial<Sharing>): Promise<Sharing> {
  const sharing = {
    visibility: input.visibility ?? 'private',
    userIds: input.userIds ?? [],
    groupIds: input.groupIds ?? [],
  };
  await assertSharing(ctx, sharing);
  return sharing;
}

/** An update's sharing fields as given (absent keeps the stored value), checked merged with the stored ones. */
export async function sharingPatch(ctx: Ctx, input: Partial<Sharing>, item: Sharing): Promise<Partial<Sharing>> {
  await assertSharing(ctx, {
    visibility: input.visibility ?? item.visibility,
    userIds: input.userIds ?? item.userIds,
    groupIds: input.groupIds ?? item.groupIds,
  });
  return { visibility: input.visibility, userIds: input.userIds, groupIds: input.groupIds };
}

export const sharingProps = ['visibility', 'userIds', 'groupIds', 'ownerId'] as const;
