import type { Ctx } from '../../platform/context';
import { Company } from '../companies';
import { Person } from '../people';
import { companyDomainOf } from './values';

export type CompanyMatchRule = 'cvr' | 'domain' | 'name';

export interface CompanyKeys {
  cvr?: string;
  name?: string;
  /** E-mail addresses whose domain may identify the company, in order of preference. */
  emails?: (string | undefined)[];
}

// Raw SQL reads bypass the ORM's tenant filter, so each one names the workspace itself; they run in
// the caller's transaction so they see its earlier writes.
// chr(63) is '?': a literal question mark would be read as a bind placeholder.
const WEBSITE_HOST_SQL = `split_part(split_part(split_part(regexp_replace(regexp_replace(lower(trim(website)), '^[a-z][a-z0-9+.-]*://', ''), '^www\\.', ''), '/', 1), ':', 1), chr(63), 1)`;

async function companyIdsWhere(
  ctx: Ctx,
  condition: string,
  params: unknown[],
): Promise<{ id: string; cvr: string | null }[]> {
  return ctx.em
    .getConnection()
    .execute<{ id: string; cvr: string | null }[]>(
      `select id, cvr from company where workspace_id = ? and (${condition}) order by created_at asc, id asc limit 20`,
      [ctx.actor.workspaceId, ...params],
      'all',
      ctx.em.getTransactionContext(),
    );
}

/** A company registered under another CVR is another legal entity, whatever its domain or name. */
export const cvrCompatible =
  (cvr: string | undefined) =>
  (row: { cvr: string | null }): boolean =>
    !cvr || !row.cvr || row.cvr === cvr;

/**
 * Finds the company an inbound payload refers to: exact CVR first, then the e-mail domain (company
 * e-mail, then person e-mail; free-mail domains never match) against company e-mail and website
 * domains, then the case-insensitive exact name. The oldest company wins a tie.
 */
export async function matchCompany(
  ctx: Ctx,
  keys: CompanyKeys,
): Promise<{ company: Company; rule: CompanyMatchRule } | null> {
  let id: string | undefined;
  let rule: CompanyMatchRule | undefined;
  if (keys.cvr) {
    id = (await companyIdsWhere(ctx, 'cvr = ?', [keys.cvr]))[0]?.id;
    rule = 'cvr';
  }
  for (const domain of [...new Set((keys.emails ?? []).map(companyDomainOf).filter((d): d is string => Boolean(d)))]) {
    if (id) break;
    const rows = await companyIdsWhere(ctx, `lower(split_part(email, '@', 2)) = ? or ${WEBSITE_HOST_SQL} = ?`, [
      domain,
      domain,
    ]);
    id = rows.find(cvrCompatible(keys.cvr))?.id;
    rule = 'domain';
  }
  if (!id && keys.name) {
    id = (await companyIdsWhere(ctx, 'lower(trim(name)) = lower(?)', [keys.name.trim()])).find(
      cvrCompatible(keys.cvr),
    )?.id;
    rule = 'name';
  }
  if (!id || !rule) return null;
  const company = await ctx.em.findOne(Company, { _id: id });
  return company ? { company, rule } : null;
}

/** The person holding this e-mail address among any of their addresses (case-insensitive); the oldest wins. */
export async function matchPersonByEmail(ctx: Ctx, email: string): Promise<Person | null> {
  const rows = await ctx.em
    .getConnection()
    .execute<{ id: string }[]>(
      `select id from person where workspace_id = ? and exists (select 1 from jsonb_array_elements(emails) e where lower(e->>'email') = ?) order by created_at asc, id asc limit 1`,
      [ctx.actor.workspaceId, email.trim().toLowerCase()],
      'all',
      ctx.em.getTransactionContext(),
    );
  return rows[0] ? ctx.em.findOne(Person, { _id: rows[0].id }) : null;
}
