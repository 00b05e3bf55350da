import { z } from 'zod';
import { BOOKING_SORTS, BOOKING_STATUSES, BOOKING_VIEWS } from '../../domain/bookings/bookings.schemas';
import { isoDateParam, pageParams } from '../http/list-query';
import { objectId } from '../http/schemas';

export const listBookingsQuery = z.object({
  ...pageParams(100),
  status: z
    .string()
    .transform((s) => s.split(',').map((x) => x.trim()).filter(Boolean))
    .refine((list) => list.every((s) => (BOOKING_STATUSES as readonly string[]).includes(s)), { message: `must be one or more of ${BOOKING_STATUSES.join(', ')} (comma-separated)` })
    .transform((list) => list as (typeof BOOKING_STATUSES)[number][])
    .optional(),
  dateFrom: isoDateParam.optional(),
  dateTo: isoDateParam.optional(),
  startFrom: isoDateParam.optional(),
  startTo: isoDateParam.optional(),
  sortBy: z.enum(BOOKING_SORTS, { message: `must be one of ${BOOKING_SORTS.join(', ')}` }).optional(),
  sortOrder: z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).optional(),
  view: z.enum(BOOKING_VIEWS, { message: `must be one of ${BOOKING_VIEWS.join(', ')}` }).default('all'),
  configId: objectId.optional(),
  agentId: objectId.optional(),
  personId: objectId.optional(),
});

/** GET /bookings/:id takes an object id or a publicId (base64url). */
export const bookingRefParams = z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/) });
export const publicIdParams = z.object({ publicId: z.string().regex(/^[A-Za-z0-9_-]{20,64}$/) });
export const configPageQuery = z.object(pageParams(100));
export const publicSlotsQuery = z.object({
  startDate: z.string({ message: 'is required (YYYY-MM-DD)' }),
  endDate: z.string({ message: 'is required (YYYY-MM-DD)' }),
});
