import type { Ctx } from '../context';
import { notFound } from '../errors';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';

export async function getWhoami(ctx: Ctx, keyPrefix: string) {
  const [workspace, user] = await Promise.all([
    ctx.em.findOne(Workspace, { _id: ctx.actor.workspaceId }),
    ctx.em.findOne(User, { _id: ctx.actor.userId }),
  ]);
  if (!workspace) throw notFound('workspace');
  return {
    workspace: { _id: workspace._id, name: workspace.name, plan: workspace.plan, timezone: workspace.timezone },
    user: user
      ? {
          _id: user._id,
          name: [user.firstName, user.lastName].filter(Boolean).join(' '),
          email: user.email,
          role: user.role,
        }
      : null,
    key: { _id: ctx.actor.keyId, prefix: keyPrefix, role: ctx.actor.role },
    scopes: ctx.actor.scopes,
  };
}
