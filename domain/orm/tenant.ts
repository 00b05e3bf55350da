import type { EntityManager } from '@mikro-orm/postgresql';

export const TENANT_FILTER = 'tenant';

export interface TenantFilterArgs {
  workspaceId: string;
}

/** A fork of the global EM bound to one workspace: the only way request and activity code gets an EM. */
export function forkForWorkspace(em: EntityManager, workspaceId: string): EntityManager {
  const fork = em.fork({ clear: true, useContext: false });
  fork.setFilterParams(TENANT_FILTER, { workspaceId } satisfies TenantFilterArgs);
  return fork;
}
