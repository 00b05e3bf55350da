import { z } from 'zod';
import type { Ctx } from '../../platform/context';
import type { NormalizedProfile } from '../../platform/shared/normalize';
import { profileQuery } from '../../platform/shared/match-keys.schemas';
import { Person } from './person.entity';
import { personView } from './people.schemas';
import { serializePerson } from './people.service';

// GET /people/lookup: a query on people, so people own it (as companies own company-lookup.ts), not the lookups module.

export const personLookupQuery = z.strictObject({
  profile: profileQuery.describe('professional-network profile URL of the person'),
});

/** GET /people/lookup: the person with the profile URL, or null. */
export const personLookupView = z.object({
  data: personView.nullable(),
  matched: z.boolean(),
  matchedOn: z.enum(['profile']).nullable(),
});
export type PersonLookupView = z.infer<typeof personLookupView>;

const none = { data: null, matched: false, matchedOn: null } as const;

export async function lookupPerson(ctx: Ctx, keys: { profile: NormalizedProfile }): Promise<PersonLookupView> {
  const person = await ctx.em.findOne(Person, { profileUrl: keys.profile.url }, { orderBy: { createdAt: 'asc' } });
  return person ? { data: serializePerson(person), matched: true, matchedOn: 'profile' } : none;
}
