/**
 * The event catalog: every outbox event the code emits, by feature (each feature declares its own
 * in `domain/<feature>/<feature>.events.ts`). `emit()` and `outboxRow()` accept only these names,
 * each with its payload type; the automation triggers, the webhook mapping and the sequence exit
 * subscriptions are checked against them (test/unit/outbox/event-catalog.test.ts). docs/events.md.
 */
import type { z } from 'zod';
import { agentEvents } from '../../modules/agents/agents.events';
import { automationEvents } from '../../modules/automations/automations.events';
import { bookingEvents } from '../../modules/bookings/bookings.events';
import { calendarEvents } from '../../modules/calendar/calendar.events';
import { callEvents } from '../../modules/calls/calls.events';
import { companyEvents } from '../../modules/companies/companies.events';
import { contractEvents } from '../../modules/contracts/contracts.events';
import { customFieldEvents } from '../../modules/custom-fields/custom-fields.events';
import { customObjectEvents } from '../../modules/custom-objects/custom-objects.events';
import { dealEvents } from '../../modules/deals/deals.events';
import { emailEvents } from '../../modules/email/email.events';
import { extensionEvents } from '../../modules/extension/extension.events';
import { fileEvents } from '../../modules/files/files.events';
import { importEvents } from '../../modules/imports/imports.events';
import { leadEvents } from '../../modules/leads/leads.events';
import { listEvents } from '../../modules/lists/lists.events';
import { messagingEvents } from '../../modules/messaging/messaging.events';
import { noteEvents } from '../../modules/notes/notes.events';
import { offerEvents } from '../../modules/offers/offers.events';
import { personEvents } from '../../modules/people/people.events';
import { presetEvents } from '../../modules/presets/presets.events';
import { pricingEvents } from '../../modules/pricing/pricing.events';
import { projectEvents } from '../../modules/projects/projects.events';
import { sequenceEvents } from '../../modules/sequences/sequences.events';
import { supportEvents } from '../../modules/support/support.events';
import { tagEvents } from '../../modules/tags/tags.events';
import { taskEvents } from '../../modules/tasks/tasks.events';
import { timelineEvents } from '../../modules/timeline/timeline.events';
import { userEvents } from '../../modules/users/users.events';

/** Each feature's catalog under its folder name (a name declared twice fails the catalog test). */
export const FEATURE_EVENTS = {
  agents: agentEvents,
  automations: automationEvents,
  bookings: bookingEvents,
  calendar: calendarEvents,
  calls: callEvents,
  companies: companyEvents,
  contracts: contractEvents,
  'custom-fields': customFieldEvents,
  'custom-objects': customObjectEvents,
  deals: dealEvents,
  email: emailEvents,
  extension: extensionEvents,
  files: fileEvents,
  imports: importEvents,
  leads: leadEvents,
  lists: listEvents,
  messaging: messagingEvents,
  notes: noteEvents,
  offers: offerEvents,
  people: personEvents,
  presets: presetEvents,
  pricing: pricingEvents,
  projects: projectEvents,
  sequences: sequenceEvents,
  support: supportEvents,
  tags: tagEvents,
  tasks: taskEvents,
  timeline: timelineEvents,
  users: userEvents,
} as const;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every declared event: name → payload schema (the feature catalogs merged). */
export const EVENT_CATALOG = Object.assign({}, ...Object.values(FEATURE_EVENTS)) as UnionToIntersection<
  (typeof FEATURE_EVENTS)[keyof typeof FEATURE_EVENTS]
>;

export type EventCatalogOf = typeof EVENT_CATALOG;
/** A declared event name (`company_created`, …). */
export type EventName = keyof EventCatalogOf;
/** The payload an event of that name carries. */
export type EventPayload<N extends EventName> = z.infer<EventCatalogOf[N]>;

export const EVENT_NAMES = Object.keys(EVENT_CATALOG).sort() as EventName[];

export const isEventName = (name: string): name is EventName => Object.hasOwn(EVENT_CATALOG, name);
