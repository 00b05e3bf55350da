import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, notFound, validation } from '../../platform/errors';
import { ROLES, SCOPES, type Role, type Scope } from '../../platform/context';
import { ApiKey } from './api-key.entity';
import { User } from './user.entity';
import { Workspace } from './workspace.entity';

export const KEY_PREFIX = 'sb_';

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** `sb_` + 32 random bytes (base64url); the full key exists only in this return value. */
export function generateKey(): { key: string; prefix: string; hash: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, prefix: key.slice(0, 11), hash: hashKey(key) };
}

export function parseScopes(input: readonly string[]): Scope[] {
  const unknown = input.filter((s) => !SCOPES.includes(s as Scope));
  if (unknown.length) throw validation(`unknown scope(s): ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}`);
  if (!input.length) throw validation('at least one scope is required');
  return [...new Set(input as Scope[])];
}

export function parseRole(input: string): Role {
  if (!ROLES.includes(input as Role)) throw validation(`unknown role "${input}"; allowed: ${ROLES.join(', ')}`);
  return input as Role;
}

export interface CreatedKey {
  id: string;
  apiKey: string;
  prefix: string;
}

/** `em` is a global (unfiltered) fork: keys are created by operators, outside any request. */
export async function createApiKey(
  em: EntityManager,
  input: { workspaceId: string; scopes: Scope[]; role: Role; name?: string; userId?: string },
): Promise<CreatedKey> {
  const workspace = await em.findOne(Workspace, { _id: input.workspaceId });
  if (!workspace) throw notFound('workspace');
  const userId = input.userId ?? (await ownerOf(em, input.workspaceId));
  const { key, prefix, hash } = generateKey();
  const row = em.create(ApiKey, {
    workspaceId: input.workspaceId,
    userId,
    name: input.name ?? null,
    prefix,
    hash,
    scopes: input.scopes,
    role: input.role,
  });
  await em.flush();
  return { id: row._id, apiKey: key, prefix };
}

async function ownerOf(em: EntityManager, workspaceId: string): Promise<string> {
  const owner = await em.findOne(
    User,
    { workspaceId, role: 'owner' },
    { filters: false, orderBy: { createdAt: 'asc' } },
  );
  if (!owner) throw new DomainError('invalid_state', 'workspace has no owner user');
  return owner._id;
}

export async function revokeApiKey(em: EntityManager, keyId: string): Promise<{ id: string; revokedAt: string }> {
  const row = await em.findOne(ApiKey, { _id: keyId });
  if (!row) throw notFound('api key');
  row.revokedAt ??= new Date();
  await em.flush();
  return { id: row._id, revokedAt: row.revokedAt.toISOString() };
}
