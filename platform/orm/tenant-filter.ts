import type { EventSubscriber, FlushEventArgs } from '@mikro-orm/core';
import { tenantEntities } from './entities';
import { TENANT_FILTER, type TenantFilterArgs } from './tenant';

// Apart from tenant.ts so services (which import forkForWorkspace) do not depend on the entity list.
const tenantNames = new Set(tenantEntities.map((schema) => schema.meta.className));

/** The global filter: on by default and failing closed when no workspace was bound to the EM. */
export const tenantFilter = {
  name: TENANT_FILTER,
  default: true,
  entity: [...tenantNames],
  cond: (args: TenantFilterArgs) => {
    if (!args?.workspaceId) throw new Error('tenant filter: no workspace bound to this entity manager');
    return { workspaceId: args.workspaceId };
  },
};

/** Refuses to flush a tenant row whose workspace differs from the one the EM is bound to. */
export class TenantGuard implements EventSubscriber {
  onFlush(args: FlushEventArgs): void {
    const bound = (args.em.getFilterParams(TENANT_FILTER) as TenantFilterArgs | undefined)?.workspaceId;
    for (const cs of args.uow.getChangeSets()) {
      if (!tenantNames.has(cs.meta.className)) continue;
      const workspaceId = (cs.entity as { workspaceId?: string }).workspaceId;
      if (!workspaceId) throw new Error(`tenant guard: ${cs.meta.className} written without workspaceId`);
      if (bound && bound !== workspaceId)
        throw new Error(`tenant guard: ${cs.meta.className} written across workspaces`);
    }
  }
}
