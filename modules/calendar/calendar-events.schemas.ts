import { z } from 'zod';
import { ATTENDEE_STATUSES, EVENT_TYPES } from './calendar-event.entity';
import { isoDateParam, pageParams } from '../../platform/shared/list-query';
import { clearableText, objectId, requiredText } from '../../platform/shared/schemas';
import { isoDate, refField, userId } from '../../platform/shared/record-fields';
import { dateTimeView, idView } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';

export const MAX_ATTENDEES = 100;
export const MAX_REMINDER_MINUTES = 40_320;

const attendee = z.object({
  email: z
    .email({ message: 'must be a valid e-mail address' })
    .max(320)
    .transform((e) => e.toLowerCase()),
  name: clearableText(200)
    .optional()
    .transform((v) => v ?? null),
  status: z
    .enum(ATTENDEE_STATUSES, { message: `must be one of ${ATTENDEE_STATUSES.join(', ')}` })
    .default('needs_action'),
});

const eventFields = {
  description: clearableText(10_000),
  type: z.enum(EVENT_TYPES, { message: `must be one of ${EVENT_TYPES.join(', ')}` }).describe('default meeting'),
  allDay: z.boolean(),
  location: clearableText(500),
  attendees: z.array(attendee).max(MAX_ATTENDEES, `at most ${MAX_ATTENDEES} attendees`),
  companyId: ref('company', refField),
  personId: ref('person', refField),
  leadId: ref('lead', refField),
  dealId: ref('deal', refField),
  ownerId: userId.describe('default: the API caller'),
  reminderMinutes: z
    .number()
    .int('must be whole minutes')
    .min(0, 'must be at least 0')
    .max(MAX_REMINDER_MINUTES, `must be at most ${MAX_REMINDER_MINUTES}`)
    .nullable(),
};

/** end ≥ start is checked by the domain on the merged record. */
export const createEventBody = z
  .object({
    title: requiredText(500),
    start: isoDate.describe('ISO date or datetime'),
    end: isoDate.describe('ISO date or datetime; not before start'),
  })
  .extend(z.object(eventFields).partial().shape);
export const updateEventBody = createEventBody.partial();

export const listEventsQuery = z.object({
  ...pageParams(),
  from: isoDateParam.optional().describe('events starting at or after'),
  to: isoDateParam.optional().describe('events starting at or before (a bare date means through that day)'),
  ownerId: objectId.optional(),
  companyId: objectId.optional(),
  personId: objectId.optional(),
  leadId: objectId.optional(),
  dealId: objectId.optional(),
});

/** What the service writes: the parsed updateEventBody (create bodies add their required fields). */
export type EventInput = z.infer<typeof updateEventBody>;

const nullableId = idView.nullable();

export const attendeeView = z.object({
  email: z.string().describe('e-mail address (lower case)'),
  name: z.string().nullable(),
  status: z.enum(ATTENDEE_STATUSES),
});

/** A calendar event as the API shows it. */
export const calendarEventView = z.object({
  _id: idView,
  title: z.string(),
  description: z.string().nullable(),
  type: z.enum(EVENT_TYPES),
  start: dateTimeView,
  end: dateTimeView,
  allDay: z.boolean(),
  location: z.string().nullable(),
  attendees: z.array(attendeeView),
  companyId: nullableId,
  personId: nullableId,
  leadId: nullableId,
  dealId: nullableId,
  ownerId: idView.describe('user id'),
  reminderMinutes: z.number().int().nullable().describe('minutes before start'),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
});
export type CalendarEventView = z.infer<typeof calendarEventView>;
