import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor, Role, Scope } from '../context';
import { DomainError } from '../errors';
import { hashKey, KEY_PREFIX } from './api-keys.service';

interface KeyRow {
  id: string;
  workspace_id: string;
  user_id: string;
  prefix: string;
  scopes: Scope[];
  role: Role;
  revoked_at: Date | null;
  workspace_status: string;
  workspace_name: string;
}

export interface Authenticated extends Actor { keyId: string; keyPrefix: string; workspaceName: string }

/** 401 for a missing or unknown key; 403 for a revoked key or a suspended workspace. */
export async function authenticateKey(em: EntityManager, key: string | undefined): Promise<Authenticated> {
  if (!key) throw new DomainError('unauthenticated', 'missing API key: send "Authorization: Bearer sb_…" or ?api_key=');
  if (!key.startsWith(KEY_PREFIX)) throw new DomainError('unauthenticated', 'invalid API key');
  const rows = await em.getConnection().execute<KeyRow[]>(
    `select k.id, k.workspace_id, k.user_id, k.prefix, k.scopes, k.role, k.revoked_at,
            w.status as workspace_status, w.name as workspace_name
       from api_key k join workspace w on w.id = k.workspace_id
      where k.hash = ?`,
    [hashKey(key)],
  );
  const row = rows[0];
  if (!row) throw new DomainError('unauthenticated', 'invalid API key');
  if (row.revoked_at) throw new DomainError('forbidden', 'API key has been revoked');
  if (row.workspace_status !== 'active') throw new DomainError('forbidden', 'workspace is suspended');
  // Throttled so that a busy key costs one write per minute, not one per request.
  em.getConnection()
    .execute(`update api_key set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`, [row.id])
    .catch(() => undefined);
  return {
    workspaceId: row.workspace_id,
    userId: row.user_id,
    role: row.role,
    scopes: row.scopes,
    keyId: row.id,
    keyPrefix: row.prefix,
    workspaceName: row.workspace_name,
  };
}
