import type { EntityManager } from '@mikro-orm/postgresql';

export type Role = 'owner' | 'admin' | 'member';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export type Scope = 'read' | 'write' | 'inbound' | 'webhooks' | 'sms' | 'export' | 'import' | 'admin' | 'contribute';
export const SCOPES: readonly Scope[] = [
  'read',
  'write',
  'inbound',
  'webhooks',
  'sms',
  'export',
  'import',
  'admin',
  'contribute',
];

/** Who is acting: always derived from the credential, never from the request body. */
export interface Actor {
  workspaceId: string;
  userId: string;
  role: Role;
  scopes: readonly Scope[];
  keyId?: string;
}

/** What every domain function receives: a forked entity manager bound to one workspace. */
export interface Ctx {
  em: EntityManager;
  actor: Actor;
}
