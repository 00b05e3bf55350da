import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../../platform/context';
import { SCOPES } from '../../../platform/context';
import { User, Workspace, type WorkspacePlan } from '../../workspaces';

/** Lookup fan-out cap per plan (spec Limits: Trial/Free 100, Basic/Starter 500, Pro+ 1000). */
export const FANOUT_CAP: Record<WorkspacePlan, number> = {
  trial: 100,
  free: 100,
  basic: 500,
  starter: 500,
  pro: 1000,
  enterprise: 1000,
};

export interface WorkspaceInfo {
  timezone: string;
  plan: WorkspacePlan;
}

export async function workspaceInfo(em: EntityManager, workspaceId: string): Promise<WorkspaceInfo> {
  const ws = await em.findOne(Workspace, { _id: workspaceId });
  return { timezone: ws?.timezone ?? 'Europe/Copenhagen', plan: ws?.plan ?? 'trial' };
}

/**
 * The user automation actions act as: the automation's creator while they are a member of the
 * workspace, else its oldest owner (every workspace has one). Their id becomes the default
 * owner of created records and the actor of emitted events.
 */
export async function automationActorId(em: EntityManager, createdBy: string | null | undefined): Promise<string> {
  if (createdBy) {
    // Loaded whole: the context of the run usually reads the same user as its owner (identity map, no second query).
    const user = await em.findOne(User, { _id: createdBy });
    if (user) return user._id;
  }
  const owner =
    (await em.findOne(User, { role: 'owner' }, { orderBy: { createdAt: 'asc' }, fields: ['_id'] })) ??
    (await em.findOne(User, {}, { orderBy: { createdAt: 'asc' }, fields: ['_id'] }));
  if (!owner) throw new Error('the workspace has no users: automations need one to act as');
  return owner._id;
}

/** Automations act with every scope of an owner: their author chose to automate these writes. */
export const automationActor = (workspaceId: string, userId: string): Actor => ({
  workspaceId,
  userId,
  role: 'owner',
  scopes: SCOPES,
});
