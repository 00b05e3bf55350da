import { z } from 'zod';
import { VISIBILITIES } from './sharing';
import { objectId, requiredText } from '../../platform/shared/schemas';
import { ref } from '../../platform/references/refs';

/** Sharing fields of filter presets and dashboard layouts. */
export const sharingFields = {
  visibility: z.enum(VISIBILITIES, { message: `must be one of: ${VISIBILITIES.join(', ')}` }),
  userIds: z.array(ref('user', objectId)).max(100, 'at most 100 users'),
  groupIds: z.array(objectId).max(100, 'at most 100 groups'),
};

/** A JSON object or array whose serialized form is at most `maxBytes`, or null to clear. */
export const boundedJson = (maxBytes: number) =>
  z
    .union([z.array(z.unknown()), z.record(z.string(), z.unknown())], { message: 'must be a JSON object or array' })
    .nullable()
    .refine((v) => v === null || Buffer.byteLength(JSON.stringify(v)) <= maxBytes, {
      message: `must be at most ${maxBytes / 1024} KB of JSON`,
    });

/** A kind's create body (name required, the rest optional) and its partial update body: its own and sharing fields. */
export function sharedItemBodies<F extends z.ZodRawShape>(fields: F) {
  const all = { ...fields, ...sharingFields };
  return {
    create: z.object({ name: requiredText(200) }).extend(z.object(all).partial().shape),
    update: z.object({ name: requiredText(200), ...all }).partial(),
  };
}

/** A stored JSON object or array (null when unset), as the API shows it. */
export const jsonView = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]).nullable();

/** Sharing fields as the API shows them. */
export const sharingView = {
  visibility: z.enum(VISIBILITIES),
  userIds: z.array(z.string()),
  groupIds: z.array(z.string()),
  ownerId: z.string().describe('user id of the owner'),
};

/** `_id`, `createdAt`, `updatedAt` of every record view. */
export const recordView = {
  _id: z.string().describe('24-hex object id'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
};
