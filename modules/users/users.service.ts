import { raw } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { forbidden } from '../../platform/errors';
import { updateWithEvent } from '../../platform/shared/changes';
import { findPage, likeAny, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { User } from '../workspaces';
import type { UserInput, UserView } from './users.schemas';
import { getRecord } from '../../platform/shared/record-service';

const FIELDS = [
  '_id',
  'email',
  'firstName',
  'lastName',
  'phone',
  'defaultUserPhone',
  'role',
  'createdAt',
  'updatedAt',
] as const;

export const serializeUser = (u: User): UserView => ({
  ...plainOf(u, FIELDS),
  name: [u.firstName, u.lastName].filter(Boolean).join(' '),
});

export function getUser(ctx: Ctx, id: string): Promise<User> {
  return getRecord(ctx, User, id, 'user');
}

/** Users of the workspace sorted by name; `search` matches first/last/full name and e-mail. */
export async function listUsers(ctx: Ctx, query: PageRequest & { search?: string }) {
  const where: Record<string, unknown> = {};
  if (query.search)
    where.$or = likeAny(query.search, [
      'email',
      raw((alias) => `concat_ws(' ', ${alias}.first_name, ${alias}.last_name)`),
    ]);
  const { items, total } = await findPage(ctx.em, User, where, query, { firstName: 'asc', lastName: 'asc' } as never);
  return { items: items.map(serializeUser), total };
}

/** Members may update only their own user; owners and admins any user of the workspace. */
export async function updateUser(ctx: Ctx, id: string, input: UserInput): Promise<UserView> {
  const user = await getUser(ctx, id);
  if (user._id !== ctx.actor.userId && ctx.actor.role === 'member')
    throw forbidden('a member may only update their own user');
  const { firstName, lastName, phone, defaultUserPhone } = input;
  await updateWithEvent(
    ctx,
    user,
    { firstName, lastName, phone, defaultUserPhone },
    { type: 'user_updated', entityType: 'user', payload: (changes) => ({ user: serializeUser(user), changes }) },
  );
  return serializeUser(user);
}
