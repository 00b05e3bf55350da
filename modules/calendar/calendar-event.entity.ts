import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export const ATTENDEE_STATUSES = ['needs_action', 'accepted', 'declined', 'tentative'] as const;
export type AttendeeStatus = (typeof ATTENDEE_STATUSES)[number];
export interface Attendee {
  email: string;
  name: string | null;
  status: AttendeeStatus;
}

// Types used by the automation action create_task (second spec document), which creates events.
export const EVENT_TYPES = ['meeting', 'call', 'task', 'follow_up', 'email', 'deadline', 'reminder', 'other'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const CalendarEvent = defineEntity({
  name: 'CalendarEvent',
  tableName: 'calendar_event',
  indexes: workspaceIndexes('start', ['ownerId', 'start'], 'icalUid'),
  properties: {
    ...tenantProps,
    title: p.string().length(500),
    description: p.text().nullable(),
    type: p.string().length(20).$type<EventType>().default('meeting'),
    start: p.datetime(),
    end: p.datetime(),
    allDay: p.boolean().default(false),
    location: p.string().length(500).nullable(),
    attendees: p.json<Attendee[]>().default([]),
    companyId: p.string().length(24).nullable(),
    personId: p.string().length(24).nullable(),
    leadId: p.string().length(24).nullable(),
    dealId: p.string().length(24).nullable(),
    ownerId: p.string().length(24),
    reminderMinutes: p.integer().nullable(),
    /** UID of the iCalendar invite this event mirrors (RSVP from a received invite). */
    icalUid: p.string().length(1000).nullable(),
  },
});
export type CalendarEvent = InferEntity<typeof CalendarEvent>;
