import type { Ctx } from '../context';
import { notFound } from '../errors';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';
import type { WhoamiView } from './workspaces.views';

/** The calling key's workspace, user, key and scopes; `key` is the authenticated key (id and prefix). */
export async function getWhoami(ctx: Ctx, key: { id: string; prefix: string }): Promise<WhoamiView> {
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
    key: { _id: key.id, prefix: key.prefix, role: ctx.actor.role },
    scopes: [...ctx.actor.scopes],
  };
}
