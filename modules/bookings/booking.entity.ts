import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Local wall-clock window, 'HH:mm' (end may be '24:00'). */
export interface TimeWindow {
  start: string;
  end: string;
}
export type WeeklyAvailability = Partial<Record<Weekday, TimeWindow[]>>;
export interface BookingAgent {
  userId: string;
  weeklyAvailability: WeeklyAvailability;
}
export interface MeetingType {
  id: string;
  name: string;
  durationMinutes: number;
}

export const APPROVAL_TIMEOUT_OUTCOMES = ['reject', 'approve'] as const;
export type ApprovalTimeoutOutcome = (typeof APPROVAL_TIMEOUT_OUTCOMES)[number];

export const BookingConfig = defineEntity({
  name: 'BookingConfig',
  tableName: 'booking_config',
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    description: p.text().nullable(),
    timeZone: p.string().length(64),
    location: p.string().length(500).nullable(),
    agents: p.json<BookingAgent[]>().defaultRaw(`'[]'`),
    meetingTypes: p.json<MeetingType[]>().defaultRaw(`'[]'`),
    bufferBeforeMinutes: p.integer().default(0),
    bufferAfterMinutes: p.integer().default(0),
    minimumNoticeMinutes: p.integer().default(0),
    maxPerDay: p.integer().nullable(),
    slotIntervalMinutes: p.integer().default(30),
    requiresApproval: p.boolean().default(false),
    approvalDeadlineHours: p.integer().default(24),
    /** Hours before the approval deadline at which approvers are reminded (latest first); null: none. */
    approvalReminderHours: p.json<number[]>().nullable(),
    onApprovalTimeout: p.string().length(10).$type<ApprovalTimeoutOutcome>().default('reject'),
    /** User ids notified to approve; empty = the workspace's owners and admins. */
    approvers: p.json<string[]>().defaultRaw(`'[]'`),
    createPerson: p.boolean().default(true),
    createLead: p.boolean().default(false),
    leadSource: p.string().length(100).nullable(),
    publicBookingEnabled: p.boolean().default(true),
    isDefault: p.boolean().default(false),
  },
});
export type BookingConfig = InferEntity<typeof BookingConfig>;

export const BOOKING_STATUSES = ['pending', 'approved', 'confirmed', 'rejected', 'cancelled'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];
/** Statuses that hold the slot (the exclusion constraint's WHERE clause says the same). */
export const HOLDING_STATUSES: readonly BookingStatus[] = ['pending', 'approved', 'confirmed'];

export interface AttendeeInfo {
  name: string;
  email: string;
  phone?: string | null;
  notes?: string | null;
}
export interface InvitedParticipant {
  email: string;
  name?: string | null;
}
export interface RescheduleEntry {
  from: string;
  to: string;
  at: string;
  by: 'user' | 'attendee';
}

export const Booking = defineEntity({
  name: 'Booking',
  tableName: 'booking',
  indexes: [{ properties: ['workspaceId', 'createdAt'] }, { properties: ['workspaceId', 'startDateTime'] }],
  properties: {
    ...tenantProps,
    publicId: p.string().length(48).unique(),
    configId: p.string().length(24),
    meetingTypeId: p.string().length(100).nullable(),
    meetingTypeName: p.string().length(200).nullable(),
    agentId: p.string().length(24),
    status: p.string().length(20).$type<BookingStatus>(),
    startDateTime: p.datetime(),
    endDateTime: p.datetime(),
    /** start − bufferBefore and end + bufferAfter: the range the exclusion constraint holds. */
    holdStart: p.datetime(),
    holdEnd: p.datetime(),
    timeZone: p.string().length(64),
    attendeeInfo: p.json<AttendeeInfo>(),
    customFieldsData: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    invitedParticipants: p.json<InvitedParticipant[]>().defaultRaw(`'[]'`),
    personId: p.string().length(24).nullable(),
    leadId: p.string().length(24).nullable(),
    calendarEventId: p.string().length(24).nullable(),
    source: p.string().length(10).$type<'api' | 'public'>().default('api'),
    approvalDeadlineAt: p.datetime().nullable(),
    approvalWorkflowId: p.string().length(120).nullable(),
    decidedBy: p.string().length(24).nullable(),
    decidedAt: p.datetime().nullable(),
    /** The API command that decided (approve/reject): a retry with its Idempotency-Key gets the outcome. */
    decisionId: p.string().length(64).nullable(),
    decisionNotes: p.text().nullable(),
    rejectionReason: p.text().nullable(),
    cancelledAt: p.datetime().nullable(),
    cancelledBy: p.string().length(20).$type<'user' | 'attendee'>().nullable(),
    cancelReason: p.text().nullable(),
    rescheduleCount: p.integer().default(0),
    /** Approver notices queued (`<rescheduleCount>:request`, `<rescheduleCount>:reminder:<hours>`): each once. */
    approvalNotices: p.json<string[]>().defaultRaw(`'[]'`),
    rescheduleHistory: p.json<RescheduleEntry[]>().defaultRaw(`'[]'`),
    createdBy: p.string().length(24).nullable(),
  },
});
export type Booking = InferEntity<typeof Booking>;
