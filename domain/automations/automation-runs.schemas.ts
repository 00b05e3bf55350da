import { z } from 'zod';
import { objectId } from '../shared/schemas';

const MAX_CONTEXT_BYTES = 256 * 1024;
const contextObject = z
  .record(z.string(), z.unknown(), { message: 'must be an object' })
  .refine((v) => JSON.stringify(v).length <= MAX_CONTEXT_BYTES, `must be at most ${MAX_CONTEXT_BYTES} bytes as JSON`);

/** A record whose namespaces (lead → lead, person/contact, company, owner, …) are loaded into the context. */
const entity = {
  entityType: z
    .enum(['lead', 'person', 'People', 'contact', 'company', 'deal', 'call', 'event'], {
      message: 'must be one of lead, person, company, deal, call, event',
    })
    .optional(),
  entityId: objectId.optional(),
};

const needsBoth = (b: { entityType?: string; entityId?: string }) => Boolean(b.entityType) === Boolean(b.entityId);
const bothMessage = { message: 'entityType and entityId go together', path: ['entityId'] };

export const triggerBody = z.object({ context: contextObject.optional(), ...entity }).refine(needsBoth, bothMessage);
export const testBody = z.object({ testContext: contextObject.optional(), ...entity }).refine(needsBoth, bothMessage);
export const cancelParams = z.object({ executionId: objectId });
export const webhookParams = z.object({ automationId: z.string().max(100) });
