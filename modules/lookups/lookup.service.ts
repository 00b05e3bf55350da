import type { Ctx } from '../../platform/context';
import { Person, serializePerson } from '../people';
import type { NormalizedProfile } from '../../platform/shared/normalize';
import type { PersonLookupView } from './lookups.views';

// The company lookup (findCompanyByKeys, lookupCompany) is the companies module's (company-lookup.ts).

const none = { data: null, matched: false, matchedOn: null } as const;

export async function lookupPerson(ctx: Ctx, keys: { profile: NormalizedProfile }): Promise<PersonLookupView> {
  const person = await ctx.em.findOne(Person, { profileUrl: keys.profile.url }, { orderBy: { createdAt: 'asc' } });
  return person ? { data: serializePerson(person), matched: true, matchedOn: 'profile' } : none;
}
