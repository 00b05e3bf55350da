// Leads committed in one transaction, so their record events land in one outbox batch (the fair-sharing tests).
import { SCOPES } from '../../platform/context';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { createLead } from '../../modules/leads/leads.service';
import type { Tenant } from './app';
import type { EngineHarness } from './automation-engine';

/** `n` leads of `tenant`, created in one transaction; their ids in order. */
export async function leadsAt(h: EngineHarness, tenant: Tenant, n: number): Promise<string[]> {
  const em = forkForWorkspace(h.app.runtime.deps.orm.em, tenant.workspaceId);
  const actor = { workspaceId: tenant.workspaceId, userId: tenant.userId, role: 'owner' as const, scopes: [...SCOPES] };
  return em.transactional(async (tem) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const lead = (await createLead({ em: tem, actor }, { title: `Fair ${i}` }, { preview: false })) as {
        _id: string;
      };
      ids.push(lead._id);
    }
    return ids;
  });
}
