import type { Ctx } from '../../platform/context';
import { notFound } from '../../platform/errors';
import { boundWorkspaceId, leanQuery } from '../../platform/orm/lean';
import type { WhoamiView } from './workspaces.views';

interface WhoamiRow {
  name: string;
  plan: WhoamiView['workspace']['plan'];
  timezone: string;
  user_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  role: string | null;
}

// The workspace and, in it, the key's user: one prepared statement (domain/orm/lean.ts), no ORM.
// The user is joined only within the workspace bound to the EM, as the tenant filter would.
const WHOAMI = `select w.name, w.plan, w.timezone, u.id as user_id, u.first_name, u.last_name, u.email, u.role
  from workspace w left join app_user u on u.id = $2 and u.workspace_id = w.id
 where w.id = $1`;

/** The calling key's workspace, user, key and scopes; `key` is the authenticated key (id and prefix). */
export async function getWhoami(ctx: Ctx, key: { id: string; prefix: string }): Promise<WhoamiView> {
  const workspaceId = boundWorkspaceId(ctx);
  if (workspaceId !== ctx.actor.workspaceId) throw notFound('workspace');
  const [row] = await leanQuery<WhoamiRow>(ctx, WHOAMI, [workspaceId, ctx.actor.userId], 'lean_whoami');
  if (!row) throw notFound('workspace');
  return {
    workspace: { _id: workspaceId, name: row.name, plan: row.plan, timezone: row.timezone },
    user: row.user_id
      ? {
          _id: row.user_id,
          name: [row.first_name, row.last_name].filter(Boolean).join(' '),
          email: row.email!,
          role: row.role as NonNullable<WhoamiView['user']>['role'],
        }
      : null,
    key: { _id: key.id, prefix: key.prefix, role: ctx.actor.role },
    scopes: [...ctx.actor.scopes],
  };
}
