/** GET /automations/:id/skips (issue 27): the query and the view of one skip. */
import { z } from 'zod';
import { pageParams } from '../../../platform/shared/list-query';
import { SKIP_REASONS } from './skip.entity';

export const listSkipsQuery = z.strictObject({
  ...pageParams(100),
  entityType: z.string().trim().min(1).max(40).optional().describe('lead, person, company, deal, …'),
  entityId: z.string().trim().min(1).max(64).optional(),
  reason: z.enum(SKIP_REASONS, { message: `must be one of ${SKIP_REASONS.join(', ')}` }).optional(),
});
export type ListSkipsQuery = z.infer<typeof listSkipsQuery>;

export const skipView = z.object({
  _id: z.string(),
  automationId: z.string(),
  createdAt: z.string().describe('when the trigger was evaluated (ISO 8601)'),
  triggerType: z.string(),
  triggerKey: z.string().nullable().describe('outbox event id, wh:<delivery key>, api:<id>'),
  entityType: z.string().nullable(),
  entityId: z.string().nullable(),
  reason: z.enum(SKIP_REASONS),
  message: z.string(),
  details: z
    .record(z.string(), z.unknown())
    .describe('the values that decided it (bounded to 4,000 characters, secrets never included)'),
});
export type SkipView = z.infer<typeof skipView>;
