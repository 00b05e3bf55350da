import { z } from 'zod';
import { isoDateParam } from './list-query';
import { mapCustomFields, objectId } from './schemas';
import { ref } from '../references/refs';

// Building blocks shared by the activities, tasks, notes, calls and events schemas.

/** ISO 8601 date or datetime string in a body, as a Date. */
export const isoDate = isoDateParam;

/** An optional record link: an object id, or null / "" to clear it on update. */
export const refField = z.union([objectId, z.literal(''), z.null()]).transform((v) => (v ? v : null));

export const userId = ref('user', objectId).describe('user id of this workspace');

export const MAX_METADATA_CHARS = 16_384;
/** Free-form JSON object, bounded by its serialized size. */
export const metadataField = z
  .record(z.string().max(100), z.unknown())
  .refine((m) => JSON.stringify(m).length <= MAX_METADATA_CHARS, {
    message: `must be at most ${MAX_METADATA_CHARS} characters as JSON`,
  });

/** Key/value custom fields (tasks): pairs accepted on write; partial merge on update, null removes a key. */
export const customFieldMap = mapCustomFields;

export const customObjectSlug = z
  .string()
  .trim()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,99}$/i,
    'must be a custom object slug (letters, digits, - and _, at most 100 characters)',
  )
  .nullable();
