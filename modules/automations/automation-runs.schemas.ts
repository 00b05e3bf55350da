import { z } from 'zod';
import { objectId } from '../../platform/shared/schemas';

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

/** How a failed run is retried (engine/retry.ts): from its failed step (default) or the start, on which graph. */
const retryHow = {
  from: z
    .enum(['failed_step', 'start'], { message: 'must be failed_step or start' })
    .default('failed_step')
    .describe('failed_step: completed steps are not redone; start: every step runs again'),
  definition: z
    .enum(['original', 'current'], { message: 'must be original or current' })
    .default('original')
    .describe("original: the graph the run started with; current: the automation's graph now"),
};
export const retryParams = z.object({ executionId: objectId });
export const retryBody = z.object(retryHow);

export const MAX_BULK_RETRY = 1000;
const instant = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time' })
  .transform((s) => new Date(s));
export const bulkRetryBody = z
  .object({
    status: z
      .literal('failed', { message: 'must be failed (only failed executions can be retried)' })
      .default('failed'),
    since: instant.optional().describe('executions started at or after this time'),
    until: instant.optional().describe('executions started before this time'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_BULK_RETRY, { message: `must be at most ${MAX_BULK_RETRY}` })
      .default(100)
      .describe(`how many executions to retry at most (1-${MAX_BULK_RETRY}, default 100), oldest first`),
    ...retryHow,
  })
  .refine((b) => !b.since || !b.until || b.since < b.until, { message: 'since must be before until', path: ['until'] });
