import type { EntityManager } from '@mikro-orm/postgresql';
import { SCOPES, type Role } from '../../platform/context';
import { conflict, notFound, validation } from '../../platform/errors';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { createApiKey } from './api-keys.service';
import { User } from './user.entity';
import { Workspace, type WorkspaceStatus } from './workspace.entity';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface CreatedWorkspace {
  workspaceId: string;
  userId: string;
  apiKey: string;
}

/** A workspace, its owner user and an owner key with every scope, in one go. */
export async function createWorkspace(
  em: EntityManager,
  input: { name: string; ownerEmail?: string; ownerFirstName?: string },
): Promise<CreatedWorkspace> {
  const name = input.name.trim();
  if (!name) throw validation('workspace name is required');
  if (name.length > 200) throw validation('workspace name must be at most 200 characters');
  const workspace = em.create(Workspace, { name });
  await em.flush();
  const user = await createUser(forkForWorkspace(em, workspace._id), {
    workspaceId: workspace._id,
    email: input.ownerEmail ?? `owner@${workspace._id}.workspace.local`,
    firstName: input.ownerFirstName ?? 'Owner',
    role: 'owner',
  });
  const key = await createApiKey(em.fork(), {
    workspaceId: workspace._id,
    scopes: [...SCOPES],
    role: 'owner',
    name: 'owner key',
    userId: user.id,
  });
  return { workspaceId: workspace._id, userId: user.id, apiKey: key.apiKey };
}

export async function setWorkspaceStatus(
  em: EntityManager,
  workspaceId: string,
  status: WorkspaceStatus,
): Promise<{ workspaceId: string; status: WorkspaceStatus }> {
  const workspace = await em.findOne(Workspace, { _id: workspaceId });
  if (!workspace) throw notFound('workspace');
  workspace.status = status;
  await em.flush();
  return { workspaceId, status };
}

/** `em` must be bound to the workspace (forkForWorkspace). */
export async function createUser(
  em: EntityManager,
  input: { workspaceId: string; email: string; firstName: string; lastName?: string; role: Role },
): Promise<{ id: string; email: string; role: Role }> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL_RE.test(email)) throw validation(`invalid e-mail address "${input.email}"`);
  if (!input.firstName.trim()) throw validation('first name is required');
  const workspace = await em.findOne(Workspace, { _id: input.workspaceId });
  if (!workspace) throw notFound('workspace');
  if (await em.count(User, { email })) throw conflict(`a user with e-mail ${email} already exists in this workspace`);
  const user = em.create(User, {
    workspaceId: input.workspaceId,
    email,
    firstName: input.firstName.trim(),
    lastName: input.lastName?.trim() || null,
    role: input.role,
  });
  await em.flush();
  return { id: user._id, email: user.email, role: user.role };
}
