import { z } from 'zod';
import { idView } from '../../platform/shared/views';

/** Response views of the session routes (GET /whoami). */

const roleView = z.enum(['owner', 'admin', 'member']);
const scopeView = z.enum(['read', 'write', 'inbound', 'webhooks', 'sms', 'export', 'import', 'admin', 'contribute']);

export const whoamiView = z.object({
  workspace: z.object({
    _id: idView,
    name: z.string(),
    plan: z.enum(['trial', 'free', 'basic', 'starter', 'pro', 'enterprise']),
    timezone: z.string().describe('IANA time zone'),
  }),
  user: z
    .object({ _id: idView, name: z.string(), email: z.string(), role: roleView })
    .nullable()
    .describe("the key's user; null when that user no longer exists"),
  key: z.object({
    _id: idView,
    prefix: z.string().describe('the first characters of the key, as shown in key lists'),
    role: roleView.describe('the role the key acts with'),
  }),
  scopes: z.array(scopeView).describe('effective scopes of the key'),
});
export type WhoamiView = z.infer<typeof whoamiView>;
