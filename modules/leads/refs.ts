import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { Company } from '../companies';
import { User } from '../workspaces';
import { Person } from '../people';

// References are looked up through the workspace-bound EM: another workspace's id is "no such record".

export async function assertCompanyRef(ctx: Ctx, id: string | null | undefined): Promise<void> {
  if (id && !(await ctx.em.count(Company, { _id: id }))) throw validation(`companyRef: no company with id ${id}`);
}

export async function assertPersonRef(ctx: Ctx, id: string | null | undefined): Promise<void> {
  if (id && !(await ctx.em.count(Person, { _id: id }))) throw validation(`personRef: no person with id ${id}`);
}

/** Every id must be a user of the caller's workspace; `path` names the field in the 400. */
export async function assertUsers(ctx: Ctx, ids: readonly string[], path: string): Promise<void> {
  const unique = [...new Set(ids)];
  if (!unique.length) return;
  const found = await ctx.em.find(User, { _id: { $in: unique } }, { fields: ['_id'] });
  const known = new Set(found.map((u) => u._id));
  const missing = unique.find((id) => !known.has(id));
  if (missing) throw validation(`${path}: no user with id ${missing} in this workspace`);
}

/** The subset of `ids` that are users of the workspace, in the given order. */
export async function existingUsers(ctx: Ctx, ids: readonly string[]): Promise<string[]> {
  if (!ids.length) return [];
  const found = await ctx.em.find(User, { _id: { $in: [...new Set(ids)] } }, { fields: ['_id'] });
  const known = new Set(found.map((u) => u._id));
  return ids.filter((id) => known.has(id));
}
