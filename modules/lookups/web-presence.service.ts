import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import { getCompany, updateCompany, serializeCompany, type ImageResolver } from '../companies';
import { CompanyPerson, Person } from '../people';
import { emailDomain, isCompanyDomain } from '../../platform/shared/normalize';
import type { CompanyRegistry, RegistryCompany } from '../../platform/ports/registry.port';
import type { WebPresenceView } from './lookups.views';

type Field = 'website' | 'logoUrl' | 'profileUrl';
type Source = 'email_domain' | 'registry';

/** The company domain most of the company's people write from (free-mail domains ignored). */
async function peopleEmailDomain(ctx: Ctx, companyId: string): Promise<string | null> {
  const links = await ctx.em.find(CompanyPerson, { companyId }, { fields: ['personId'], limit: 500 });
  const people = await ctx.em.find(
    Person,
    { $or: [{ companyId }, { _id: { $in: links.map((l) => l.personId) } }] },
    { fields: ['emails'], limit: 500 },
  );
  const counts = new Map<string, number>();
  for (const person of people) {
    for (const { email } of person.emails) {
      const domain = emailDomain(email);
      if (isCompanyDomain(domain)) counts.set(domain, (counts.get(domain) ?? 0) + 1);
    }
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}

async function fromRegistry(
  registry: CompanyRegistry,
  company: { cvr?: string | null; name: string },
): Promise<RegistryCompany | null> {
  if (company.cvr) return registry.find({ cvr: company.cvr });
  const r = await registry.find({ name: company.name });
  return r && r.name.trim().toLowerCase() === company.name.trim().toLowerCase() ? r : null;
}

/**
 * Fills the company's empty website, logo and profile link; never overwrites a value. The website
 * comes from the company's own e-mail domain, else its people's, else the registry; logo and
 * profile link come from the registry when it knows them.
 */
export async function findWebPresence(
  ctx: Ctx,
  id: string,
  deps: { registry: CompanyRegistry; images: ImageResolver },
): Promise<WebPresenceView> {
  const company = await getCompany(ctx, id);
  const missing = (['website', 'logoUrl', 'profileUrl'] as const).filter((f) => !company[f]);
  if (!missing.length) {
    return {
      status: 'already_filled',
      hint: 'website, logo and profile link are already set; clear one (PUT with "") to look it up again',
      filled: [],
      sources: {},
      company: serializeCompany(company),
    };
  }
  const found: Partial<Record<Field, string>> = {};
  const sources: Partial<Record<Field, Source>> = {};
  const notes: string[] = [];
  if (missing.includes('website')) {
    const domain = [emailDomain(company.email)].find(isCompanyDomain) ?? (await peopleEmailDomain(ctx, company._id));
    if (domain) {
      found.website = `https://${domain}`;
      sources.website = 'email_domain';
    }
  }
  if (missing.some((f) => !found[f])) {
    if (!deps.registry.configured) notes.push('set CVR_API_URL to also search the company registry');
    else {
      try {
        const r = await fromRegistry(deps.registry, company);
        const domain = r?.website ? null : emailDomain(r?.email);
        const candidates: Partial<Record<Field, string | null>> = {
          website: r?.website ?? (isCompanyDomain(domain) ? `https://${domain}` : null),
          logoUrl: r?.logoUrl,
          profileUrl: r?.profileUrl,
        };
        for (const field of missing) {
          const value = candidates[field];
          if (!found[field] && value) {
            found[field] = value;
            sources[field] = 'registry';
          }
        }
        if (!r)
          notes.push(
            company.cvr
              ? `the registry does not know CVR ${company.cvr}`
              : 'the registry has no company with exactly this name; set the cvr field for an exact match',
          );
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'upstream_failed') throw err;
        notes.push(`the company registry could not be reached (${err.message}); try again later`);
      }
    }
  }
  if (found.logoUrl) {
    try {
      found.logoUrl = (await deps.images(ctx, found.logoUrl)) ?? undefined;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      delete found.logoUrl;
      delete sources.logoUrl;
      notes.push('the registry logo could not be fetched as an image');
    }
  }
  const filled = (Object.keys(found) as Field[]).filter((f) => found[f]);
  if (!filled.length) {
    const hint = [
      "nothing found from the company's or its people's e-mail domains (free-mail domains are ignored)",
      ...notes,
      'or set the fields by hand',
    ].join('; ');
    return { status: 'not_found', hint, filled: [], sources: {}, company: serializeCompany(company) };
  }
  // Logo is already a workspace image URL: the resolver accepts it back unchanged.
  const view = await updateCompany(ctx, id, found, { preview: false, images: deps.images });
  if ('preview' in view) throw new Error('unreachable: not a preview');
  const stillMissing = missing.filter((f) => !found[f]);
  const hint = stillMissing.length
    ? [`filled ${filled.join(', ')}; still empty: ${stillMissing.join(', ')}`, ...notes].join('; ')
    : `filled ${filled.join(', ')}; check the values on the company`;
  return { status: 'updated', hint, filled, sources, company: view };
}
