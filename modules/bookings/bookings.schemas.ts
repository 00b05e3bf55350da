import { z } from 'zod';
import { isId } from '../../platform/ids';
import { isoDateParam, pageParams } from '../../platform/shared/list-query';
import { APPROVAL_TIMEOUT_OUTCOMES, BOOKING_STATUSES, WEEKDAYS } from './booking.entity';
import { isLocalDate, isLocalTime, isValidTimeZone, minutesOf } from './slots';
import { ref } from '../../platform/references/refs';

const objectId = z.string().refine(isId, { message: 'must be a 24-character hex id' });
const requiredId = z
  .string({ message: 'is required (a 24-character hex id)' })
  .refine(isId, { message: 'must be a 24-character hex id' });
const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const clearable = (max: number) =>
  z
    .string()
    .trim()
    .max(max, `must be at most ${max} characters`)
    .nullable()
    .transform((v) => (v === '' || v === null ? null : v));
/** Reminders to approvers per booking (hours before the approval deadline). */
export const MAX_APPROVAL_REMINDERS = 5;

const int = (min: number, max: number) =>
  z
    .number({ message: 'must be a number' })
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

export const MAX_AGENTS = 50;
export const MAX_MEETING_TYPES = 50;
export const MAX_WINDOWS_PER_DAY = 12;
/** Widest available-slots query (days, inclusive). */
export const MAX_SLOT_RANGE_DAYS = 62;

export const timeZoneField = z
  .string()
  .refine(isValidTimeZone, { message: 'must be an IANA time zone such as Europe/Copenhagen' });

const windowSchema = z
  .object({
    start: z.string().refine(isLocalTime, { message: 'must be HH:mm (00:00-23:59)' }),
    end: z.string().refine(isLocalTime, { message: 'must be HH:mm (00:01-24:00)' }),
  })
  .refine((w) => minutesOf(w.end) > minutesOf(w.start), { message: 'end must be after start', path: ['end'] });

const dayWindows = z
  .array(windowSchema)
  .max(MAX_WINDOWS_PER_DAY, `at most ${MAX_WINDOWS_PER_DAY} windows per day`)
  .refine(
    (list) => {
      const sorted = [...list].sort((a, b) => minutesOf(a.start) - minutesOf(b.start));
      return sorted.every((w, i) => i === 0 || minutesOf(w.start) >= minutesOf(sorted[i - 1]!.end));
    },
    { message: 'windows of one day must not overlap' },
  );

export const weeklyAvailabilitySchema = z.strictObject(
  Object.fromEntries(WEEKDAYS.map((d) => [d, dayWindows.optional()])) as Record<
    (typeof WEEKDAYS)[number],
    z.ZodOptional<typeof dayWindows>
  >,
  {
    message: `keys must be weekdays (${WEEKDAYS.join(', ')})`,
  },
);

const agentSchema = z.object({ userId: ref('user', objectId), weeklyAvailability: weeklyAvailabilitySchema });
const meetingTypeSchema = z.object({
  id: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be 1-100 letters, digits, _ or -'),
  name: text(200),
  durationMinutes: int(5, 24 * 60),
});

export const bookingConfigFields = {
  name: text(200),
  description: clearable(5000),
  timeZone: timeZoneField,
  location: clearable(500),
  agents: z
    .array(agentSchema)
    .max(MAX_AGENTS, `at most ${MAX_AGENTS} agents`)
    .refine((list) => new Set(list.map((a) => a.userId)).size === list.length, {
      message: 'an agent may appear only once',
    }),
  meetingTypes: z
    .array(meetingTypeSchema)
    .min(1, 'at least one meeting type')
    .max(MAX_MEETING_TYPES, `at most ${MAX_MEETING_TYPES} meeting types`)
    .refine((list) => new Set(list.map((m) => m.id)).size === list.length, {
      message: 'meeting type ids must be unique',
    }),
  bufferBeforeMinutes: int(0, 24 * 60),
  bufferAfterMinutes: int(0, 24 * 60),
  minimumNoticeMinutes: int(0, 365 * 24 * 60),
  maxPerDay: int(1, 1000).nullable(),
  slotIntervalMinutes: int(5, 24 * 60),
  requiresApproval: z.boolean({ message: 'must be a boolean' }),
  approvalDeadlineHours: int(1, 24 * 30),
  approvalReminderHours: z
    .array(int(1, 24 * 30 - 1), { message: 'must be a list of hours before the approval deadline, e.g. [24, 2]' })
    .max(MAX_APPROVAL_REMINDERS, `at most ${MAX_APPROVAL_REMINDERS} reminders`)
    .refine((list) => new Set(list).size === list.length, { message: 'each offset may appear only once' })
    .nullable()
    // Stored latest-first (the order they fall due); an empty list is no reminders, like null.
    .transform((list) => (list?.length ? [...list].sort((a, b) => b - a) : null)),
  onApprovalTimeout: z.enum(APPROVAL_TIMEOUT_OUTCOMES, {
    message: `must be one of ${APPROVAL_TIMEOUT_OUTCOMES.join(', ')}`,
  }),
  approvers: z.array(ref('user', objectId)).max(50, 'at most 50 approvers'),
  createPerson: z.boolean({ message: 'must be a boolean' }),
  createLead: z.boolean({ message: 'must be a boolean' }),
  leadSource: clearable(100),
  publicBookingEnabled: z.boolean({ message: 'must be a boolean' }),
};

export const createBookingConfigBody = z.object(bookingConfigFields).partial().required({ name: true, timeZone: true });
export const updateBookingConfigBody = z.object(bookingConfigFields).partial();
export type BookingConfigInput = z.infer<typeof updateBookingConfigBody>;

const localDate = z
  .string({ message: 'is required (YYYY-MM-DD)' })
  .refine(isLocalDate, { message: "must be a date YYYY-MM-DD (a local date in the config's time zone)" });

export const availableSlotsQuery = z.object({
  configId: requiredId,
  startDate: localDate,
  endDate: localDate,
  meetingTypeId: z.string().max(100).optional(),
  agentId: objectId.optional(),
});

/** ISO 8601 instant with a time and an offset (or Z): a slot start is never a bare local time. */
export const instant = z
  .string({ message: 'is required (ISO 8601 date-time with offset, e.g. 2026-03-30T09:00:00+02:00)' })
  .refine(
    (s) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) &&
      !Number.isNaN(Date.parse(s)),
    {
      message: 'must be an ISO 8601 date-time with offset, e.g. 2026-03-30T09:00:00+02:00',
    },
  )
  .transform((s) => new Date(s));

const attendeeSchema = z.object(
  {
    name: text(200),
    email: z
      .email({ message: 'must be a valid e-mail address' })
      .max(320, 'must be at most 320 characters')
      .transform((v) => v.toLowerCase()),
    phone: z.string().trim().max(50, 'must be at most 50 characters').nullable().optional(),
    notes: z.string().trim().max(5000, 'must be at most 5000 characters').nullable().optional(),
  },
  { message: 'attendeeInfo is required ({ name, email, phone?, notes? })' },
);

export const MAX_INVITED = 20;

export const createBookingBody = z.object({
  // Checked by createBooking in the statement that reads the config (availability.ts loadBookingTarget).
  configId: requiredId,
  slotStart: instant,
  attendeeInfo: attendeeSchema,
  meetingTypeId: z.string().max(100).optional(),
  selectedAgentId: ref('user', objectId).optional(),
  customFieldsData: z
    .record(z.string().max(100), z.unknown())
    .optional()
    .refine((v) => v === undefined || JSON.stringify(v).length <= 20_000, {
      message: 'must be at most 20000 characters as JSON',
    }),
  invitedParticipants: z
    .array(
      z.object({
        email: z
          .email({ message: 'must be a valid e-mail address' })
          .max(320)
          .transform((v) => v.toLowerCase()),
        name: z.string().trim().max(200).nullable().optional(),
      }),
    )
    .max(MAX_INVITED, `at most ${MAX_INVITED} invited participants`)
    .optional(),
});
export type CreateBookingInput = z.infer<typeof createBookingBody>;

export const BOOKING_SORTS = ['startDateTime', 'endDateTime', 'createdAt', 'status'] as const;
export const BOOKING_VIEWS = ['all', 'upcoming', 'past'] as const;

export const rescheduleBody = z.object({ newSlotStart: instant, reason: z.string().trim().max(2000).optional() });
export const approveBody = z.object({
  notes: z.string().trim().max(5000, 'must be at most 5000 characters').optional(),
});
export const rejectBody = z.object({
  reason: z.string().trim().max(5000, 'must be at most 5000 characters').optional(),
});
export const cancelBody = z.object({
  reason: z.string().trim().max(2000, 'must be at most 2000 characters').optional(),
});
export { BOOKING_STATUSES };

// Query and path schemas of the /bookings routes.

export const listBookingsQuery = z.object({
  ...pageParams(100),
  status: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every((s) => (BOOKING_STATUSES as readonly string[]).includes(s)), {
      message: `must be one or more of ${BOOKING_STATUSES.join(', ')} (comma-separated)`,
    })
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

/** A one-click decision link (decision-links.ts): shape only; the signature is checked by the service. */
export const decisionTokenParams = z.object({
  token: z.string().regex(/^[0-9a-f]{72}\.\d{1,6}\.\d{1,12}\.[A-Za-z0-9_-]{43}$/, 'not a decision link'),
});
export const linkDecisionBody = z.object({
  decision: z.enum(['approve', 'reject'], { message: 'must be approve or reject' }),
  notes: z.string().trim().max(5000, 'must be at most 5000 characters').optional(),
  reason: z.string().trim().max(5000, 'must be at most 5000 characters').optional(),
});
