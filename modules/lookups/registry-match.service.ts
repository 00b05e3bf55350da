import type { Ctx } from '../../platform/context';
import { emailDomain } from '../../platform/shared/normalize';
import type { NormalizedProfile } from '../../platform/shared/normalize';
import { findCompanyByKeys } from '../companies';
import type { CompanyRegistry, RegistryCompany } from '../../platform/ports/registry.port';
import type { RegistryMatchView } from './lookups.views';

const sameName = (a: string, b: string): boolean =>
  a.trim().toLocaleLowerCase('da') === b.trim().toLocaleLowerCase('da');

const registryDomain = (r: RegistryCompany): string | null =>
  r.website ? new URL(r.website).hostname : emailDomain(r.email);

/**
 * The registry company for a profile, a domain or an exact name. A profile or domain first finds
 * the workspace company and uses its registry number; a name must match exactly (case aside); a
 * bare domain searches the registry and counts only when the registry's web or e-mail domain is it.
 */
export async function matchRegistry(
  ctx: Ctx,
  registry: CompanyRegistry,
  q: { profile?: NormalizedProfile; domain?: string; name?: string },
): Promise<RegistryMatchView> {
  if (!registry.configured) await registry.find({ search: '' });
  const local = q.profile || q.domain ? await findCompanyByKeys(ctx, q) : null;
  const companyId = local?.company._id ?? null;
  const hit = (data: RegistryCompany, matchedOn: RegistryMatchView['matchedOn']): RegistryMatchView => ({
    data,
    matched: true,
    matchedOn,
    companyId,
  });
  if (local?.company.cvr) {
    const r = await registry.find({ cvr: local.company.cvr });
    if (r) return hit(r, 'cvr');
  }
  for (const name of [q.name, local?.company.name]) {
    if (!name) continue;
    const r = await registry.find({ name });
    if (r && sameName(r.name, name)) return hit(r, 'name');
  }
  if (q.domain) {
    const r = await registry.find({ search: q.domain });
    if (r && registryDomain(r) === q.domain) return hit(r, 'domain');
  }
  return { data: null, matched: false, matchedOn: null, companyId };
}
