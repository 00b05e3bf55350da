import { z } from 'zod';
import { CLIP_CARD_STATUSES } from './project.entity';
import { pageParams } from '../../platform/shared/list-query';
import { clearableText, objectId } from '../../platform/shared/schemas';
import { isoDate } from '../../platform/shared/record-fields';
import { dateTimeView, idView, recordViewFields } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';

const hours = z
  .number({ message: 'must be a number' })
  .gt(0, 'must be greater than 0')
  .max(1_000_000, 'must be at most 1000000');
const rate = z
  .number({ message: 'must be a number' })
  .min(0, 'must be at least 0')
  .max(1_000_000, 'must be at most 1000000');

const cardFields = {
  title: clearableText(300),
  allowOverdraft: z.boolean({ message: 'must be a boolean' }),
  overdraftRate: rate.nullable(),
  expiresAt: isoDate.nullable(),
  notes: clearableText(10_000),
};

export const createClipCardBody = z
  .object({ project: ref('project', objectId).describe('project id'), totalHours: hours, hourlyRate: rate })
  .extend(z.object(cardFields).partial().shape);
export const updateClipCardBody = z
  .object({
    project: ref('project', objectId).describe('cannot change'),
    totalHours: hours,
    hourlyRate: rate,
    ...cardFields,
    status: z.enum(['cancelled', 'active'], {
      message: 'must be cancelled or active (depleted and expired follow from hours and dates)',
    }),
  })
  .partial();

export const listClipCardsQuery = z.object({
  ...pageParams(100),
  status: z.enum(CLIP_CARD_STATUSES, { message: `must be one of ${CLIP_CARD_STATUSES.join(', ')}` }).optional(),
  projectId: objectId.optional(),
});

/** What the service writes: the parsed updateClipCardBody (create bodies add their required fields). */
export type ClipCardInput = z.infer<typeof updateClipCardBody>;

// ---- Views (response schemas) ----

export const clipCardView = z.object({
  ...recordViewFields,
  projectId: idView,
  project: idView.describe('same as projectId (the write name)'),
  title: z.string().nullable(),
  totalHours: z.number(),
  usedHours: z.number().describe('hours consumed by time entries'),
  hourlyRate: z.number(),
  allowOverdraft: z.boolean(),
  overdraftRate: z.number().nullable(),
  expiresAt: dateTimeView.nullable(),
  notes: z.string().nullable(),
  cancelledAt: dateTimeView.nullable(),
  status: z.enum(CLIP_CARD_STATUSES).describe('derived on every read from cancelledAt, expiresAt and hours'),
  remainingHours: z.number().describe('totalHours − usedHours; negative only with allowOverdraft'),
  overdraftHours: z.number().describe('hours used beyond totalHours (0 when none)'),
});
export type ClipCardView = z.infer<typeof clipCardView>;
