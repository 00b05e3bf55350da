import { z } from 'zod';
import { customFieldsView, dateTimeView, dateView, idView, recordViewFields } from '../../platform/shared/views';
import { APPROVAL_TIMEOUT_OUTCOMES, BOOKING_STATUSES, WEEKDAYS } from './booking.entity';

/** Response views of the booking routes (configs, bookings, slots and the attendee's public side). */

const localTimeView = z.string().describe("local wall-clock time HH:mm (end may be '24:00')");
const windowView = z.object({ start: localTimeView, end: localTimeView });
const weeklyAvailabilityView = z
  .object(
    Object.fromEntries(WEEKDAYS.map((d) => [d, z.array(windowView).optional()])) as Record<
      (typeof WEEKDAYS)[number],
      z.ZodOptional<z.ZodArray<typeof windowView>>
    >,
  )
  .describe('weekday → local time windows; a missing day has no availability');

export const meetingTypeView = z.object({
  id: z.string(),
  name: z.string(),
  durationMinutes: z.number().int(),
});

export const bookingConfigView = z.object({
  ...recordViewFields,
  name: z.string(),
  description: z.string().nullable(),
  timeZone: z.string().describe('IANA time zone'),
  location: z.string().nullable(),
  agents: z.array(z.object({ userId: idView, weeklyAvailability: weeklyAvailabilityView })),
  meetingTypes: z.array(meetingTypeView),
  bufferBeforeMinutes: z.number().int(),
  bufferAfterMinutes: z.number().int(),
  minimumNoticeMinutes: z.number().int(),
  maxPerDay: z.number().int().nullable().describe('bookings per agent and local day; null: no limit'),
  slotIntervalMinutes: z.number().int(),
  requiresApproval: z.boolean(),
  approvalDeadlineHours: z.number().int(),
  approvalReminderHours: z
    .array(z.number().int())
    .nullable()
    .describe('hours before the approval deadline at which approvers are reminded, latest first; null: none'),
  onApprovalTimeout: z.enum(APPROVAL_TIMEOUT_OUTCOMES),
  approvers: z.array(idView).describe('user ids; empty: the owners and admins'),
  createPerson: z.boolean(),
  createLead: z.boolean(),
  leadSource: z.string().nullable(),
  publicBookingEnabled: z.boolean(),
  isDefault: z.boolean().describe("the workspace's default config (created by the first list)"),
});
export type BookingConfigView = z.infer<typeof bookingConfigView>;

const actorKind = z.enum(['user', 'attendee']);

export const bookingView = z.object({
  ...recordViewFields,
  publicId: z.string().describe("the attendee's capability (public links)"),
  configId: idView,
  meetingTypeId: z.string().nullable(),
  meetingTypeName: z.string().nullable(),
  agentId: idView,
  status: z.enum(BOOKING_STATUSES),
  startDateTime: dateTimeView,
  endDateTime: dateTimeView,
  timeZone: z.string().describe("the config's IANA time zone at booking time"),
  attendeeInfo: z.object({
    name: z.string(),
    email: z.string(),
    phone: z.string().nullable().optional(),
    notes: z.string().nullable().optional(),
  }),
  customFieldsData: customFieldsView,
  invitedParticipants: z.array(z.object({ email: z.string(), name: z.string().nullable().optional() })),
  personId: idView.nullable(),
  leadId: idView.nullable(),
  calendarEventId: idView.nullable(),
  source: z.enum(['api', 'public']),
  approvalDeadlineAt: dateTimeView.nullable(),
  approvalWorkflowId: z.string().nullable(),
  decidedBy: idView.nullable().describe('null when the deadline decided'),
  decidedAt: dateTimeView.nullable(),
  decisionNotes: z.string().nullable(),
  rejectionReason: z.string().nullable(),
  cancelledAt: dateTimeView.nullable(),
  cancelledBy: actorKind.nullable(),
  cancelReason: z.string().nullable(),
  rescheduleCount: z.number().int().min(0),
  rescheduleHistory: z.array(
    z.object({ from: dateTimeView, to: dateTimeView, at: dateTimeView, by: actorKind }).describe('one move'),
  ),
  createdBy: idView.nullable().describe('null for bookings made on the public page'),
});
export type BookingView = z.infer<typeof bookingView>;

const slotTimes = {
  start: dateTimeView,
  end: dateTimeView,
  localDate: dateView.describe("local date of the start in the config's time zone"),
  localTime: z.string().describe('local time of the start, HH:mm'),
};

export const availableSlotsView = z.object({
  configId: idView,
  timeZone: z.string(),
  meetingType: meetingTypeView,
  startDate: z.string().describe('YYYY-MM-DD as asked'),
  endDate: z.string().describe('YYYY-MM-DD as asked'),
  slots: z.array(z.object({ ...slotTimes, agentIds: z.array(idView).describe('agents free for this slot') })),
});
export type AvailableSlotsView = z.infer<typeof availableSlotsView>;

/** The attendee's view of a booking (public routes: no ids beyond the publicId). */
export const publicBookingView = z.object({
  publicId: z.string(),
  status: z.enum(BOOKING_STATUSES),
  startDateTime: dateTimeView,
  endDateTime: dateTimeView,
  timeZone: z.string(),
  meetingType: z.object({ id: z.string().nullable(), name: z.string().nullable() }),
  attendeeInfo: z.object({ name: z.string(), email: z.string() }),
  host: z.string().nullable().describe("the agent's name"),
  bookingPage: z.object({
    name: z.string(),
    location: z.string().nullable(),
    minimumNoticeMinutes: z.number().int(),
  }),
  approvalDeadlineAt: dateTimeView.nullable().describe('while pending'),
  canCancel: z.boolean(),
  canReschedule: z.boolean(),
});
export type PublicBookingView = z.infer<typeof publicBookingView>;

export const publicSlotsView = z.object({
  timeZone: z.string(),
  startDate: z.string(),
  endDate: z.string(),
  slots: z.array(z.object(slotTimes)),
});
export type PublicSlotsView = z.infer<typeof publicSlotsView>;

export const DECISION_LINK_STATES = ['open', 'used', 'decided', 'expired', 'superseded', 'not_approver'] as const;
export type DecisionLinkState = (typeof DECISION_LINK_STATES)[number];

/** An approver's one-click decision link: the booking and what the link can still do. */
export const bookingDecisionView = z.object({
  state: z
    .enum(DECISION_LINK_STATES)
    .describe(
      'open: can decide; used: this link decided; decided: decided or cancelled otherwise; expired: the deadline passed; superseded: a reschedule sent a newer link; not_approver',
    ),
  canDecide: z.boolean(),
  booking: z.object({
    status: z.enum(BOOKING_STATUSES),
    startDateTime: dateTimeView,
    endDateTime: dateTimeView,
    timeZone: z.string(),
    meetingTypeName: z.string().nullable(),
    bookingPage: z.string().describe("the booking config's name"),
    attendee: z.object({ name: z.string(), email: z.string(), notes: z.string().nullable() }),
    approvalDeadlineAt: dateTimeView.nullable(),
    decidedAt: dateTimeView.nullable(),
  }),
});
export type BookingDecisionView = z.infer<typeof bookingDecisionView>;
