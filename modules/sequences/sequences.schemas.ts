import { z } from 'zod';
import { DomainError } from '../../platform/errors';
import { ENTITY_TYPES, sequenceCreateBody, sequenceUpdateBody } from './definition.schemas';
import { MAX_BULK_ENROLL } from './enroll.service';
import { ENROLLMENT_STATUSES, type EnrollmentStatus } from './sequence.entity';
import { pageParams } from '../../platform/shared/list-query';
import { objectId } from '../../platform/shared/schemas';

/** The definition bodies live beside the graph validator (definition.schemas.ts). */
export { sequenceCreateBody, sequenceUpdateBody };

const isActive = z.enum(['true', 'false'], { message: 'must be true or false' }).transform((s) => s === 'true');
const entityType = z.enum(ENTITY_TYPES, { message: `must be one of ${ENTITY_TYPES.join(', ')}` });
const id = z.string({ message: 'is required' }).regex(/^[0-9a-f]{24}$/, 'must be a 24-character hex id');

export const listSequencesQuery = z.strictObject({
  ...pageParams(100),
  isActive: isActive.optional().describe('true: only active sequences; false: only inactive ones'),
});

export const listEnrollmentsQuery = z.strictObject({
  ...pageParams(100),
  status: z
    .enum(ENROLLMENT_STATUSES as [EnrollmentStatus, ...EnrollmentStatus[]], {
      message: `must be one of ${ENROLLMENT_STATUSES.join(', ')}`,
    })
    .optional(),
});

/** Both required; checked after the sequence is found, so an unknown sequence is 404 first. */
export const eligibilityQuery = z.strictObject({
  entityType: entityType.optional().describe('required'),
  entityId: id.optional().describe('required'),
});

/**
 * Single (`entityId`) or bulk (`entityIds`, at most MAX_BULK_ENROLL); exactly one of them. The
 * presence checks run after the sequence is found (an unknown sequence is 404 first): enrollTarget.
 */
export const enrollBody = z.object({
  entityType: entityType.optional().describe('required: Lead, People, Deal or Company'),
  entityId: id.optional(),
  entityIds: z
    .array(id)
    .min(1, 'must not be empty')
    .max(MAX_BULK_ENROLL, `at most ${MAX_BULK_ENROLL} per call`)
    .optional(),
  source: z.string().trim().min(1).max(40, 'must be at most 40 characters').default('api'),
  forceRestart: z.boolean({ message: 'must be true or false' }).default(false),
});

export function enrollTarget(b: z.infer<typeof enrollBody>): { entityType: EntityType; ids: string[]; bulk: boolean } {
  const details: { path: string; error: string }[] = [];
  if (!b.entityType) details.push({ path: 'entityType', error: 'is required' });
  if ((b.entityId === undefined) === (b.entityIds === undefined))
    details.push({ path: 'entityId', error: 'send exactly one of entityId (single) or entityIds (bulk)' });
  if (details.length) throw new DomainError('validation', `body: ${details[0]!.path}: ${details[0]!.error}`, details);
  return { entityType: b.entityType!, ids: b.entityIds ?? [b.entityId!], bulk: b.entityIds !== undefined };
}
type EntityType = z.infer<typeof entityType>;

export const pauseBody = z
  .object({
    durationDays: z
      .number({ message: 'must be a number' })
      .positive('must be greater than 0')
      .max(365, 'must be at most 365')
      .optional(),
  })
  .optional()
  .default({});

export const enrollmentParams = z.object({ enrollmentId: objectId });
export const tokenParams = z.object({ token: z.string().max(100) });
