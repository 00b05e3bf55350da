import type { EventSubscriber, FlushEventArgs } from '@mikro-orm/core';
import type { ResourceEntity } from '../shared/resource';
import { TENANT_FILTER, type TenantFilterArgs } from './tenant';

/** The global filter over the tenant entities: on by default, failing closed when no workspace was bound to the EM. */
export const tenantFilter = (tenantEntities: readonly ResourceEntity[]) => ({
  name: TENANT_FILTER,
  default: true,
  entity: tenantEntities.map((schema) => schema.meta.className),
  cond: (args: TenantFilterArgs) => {
    if (!args?.workspaceId) throw new Error('tenant filter: no workspace bound to this entity manager');
    return { workspaceId: args.workspaceId };
  },
});

/** Refuses to flush a tenant row whose workspace differs from the one the EM is bound to. */
export class TenantGuard implements EventSubscriber {
  private readonly tenantNames: ReadonlySet<string>;

  constructor(tenantEntities: readonly ResourceEntity[]) {
    this.tenantNames = new Set(tenantEntities.map((schema) => schema.meta.className));
  }

  onFlush(args: FlushEventArgs): void {
    const bound = (args.em.getFilterParams(TENANT_FILTER) as TenantFilterArgs | undefined)?.workspaceId;
    for (const cs of args.uow.getChangeSets()) {
      if (!this.tenantNames.has(cs.meta.className)) continue;
      const workspaceId = (cs.entity as { workspaceId?: string }).workspaceId;
      if (!workspaceId) throw new Error(`tenant guard: ${cs.meta.className} written without workspaceId`);
      if (bound && bound !== workspaceId)
        throw new Error(`tenant guard: ${cs.meta.className} written across workspaces`);
    }
  }
}
