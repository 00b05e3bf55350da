import { z } from 'zod';
import { EXECUTION_STATUSES } from './automations-read.service';
import { automationCreateBody, automationUpdateBody } from './definition.schemas';
import { pageParams } from '../../platform/shared/list-query';
import { objectId } from '../../platform/shared/schemas';

/** The definition bodies live beside the graph validator (modules/automations/definition.schemas.ts). */
export { automationCreateBody, automationUpdateBody };

const isActive = z.enum(['true', 'false'], { message: 'must be true or false' }).transform((s) => s === 'true');

/** Strict: a misspelt filter (e.g. `active=true`) is a 400, not a silently unfiltered list. */
export const listAutomationsQuery = z.strictObject({
  ...pageParams(100),
  isActive: isActive.optional().describe('true: only active automations; false: only inactive ones'),
});

export const listExecutionsQuery = z.strictObject({
  ...pageParams(100),
  status: z.enum(EXECUTION_STATUSES, { message: `must be one of ${EXECUTION_STATUSES.join(', ')}` }).optional(),
});

export const executionParams = z.object({ executionId: objectId });
