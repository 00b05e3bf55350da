import { z } from 'zod';
import { idView } from '../../platform/shared/views';

/** Response views of the crm-connect routes (phone/e-mail lookup, connector calls). */

export const lookupMatchView = z.object({
  entityType: z.enum(['person', 'company', 'lead']),
  _id: idView,
  name: z.string(),
  matchedOn: z.enum(['phone', 'email']),
  value: z.string().describe('the stored phone number or e-mail address that matched'),
});

export const lookupResultView = z.object({
  matches: z.array(lookupMatchView).describe('people, then companies, then leads; at most 25 of each'),
});
export type LookupResultView = z.infer<typeof lookupResultView>;
