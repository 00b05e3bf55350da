import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { assertRecordLinks } from '../timeline';
import { type Changes, createdEvent, emitCreate, updateWithEvent } from '../../platform/shared/changes';
import { dateWhere, findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord, pickDefined } from '../../platform/shared/records';
import { CalendarEvent } from './calendar-event.entity';
import type { CalendarEventView, EventInput } from './calendar-events.schemas';
import { deleteById, getRecord } from '../../platform/shared/record-service';

export const EVENT_FIELDS = [
  '_id',
  'title',
  'description',
  'type',
  'start',
  'end',
  'allDay',
  'location',
  'attendees',
  'companyId',
  'personId',
  'leadId',
  'dealId',
  'ownerId',
  'reminderMinutes',
  'createdAt',
  'updatedAt',
] as const;

/** The writable fields: every field of the view but the id and the timestamps. */
const FIELDS = EVENT_FIELDS.filter((f) => f !== '_id' && f !== 'createdAt' && f !== 'updatedAt');

export const serializeEvent = (e: CalendarEvent): CalendarEventView => plainOf(e, EVENT_FIELDS);

export function getEvent(ctx: Ctx, id: string): Promise<CalendarEvent> {
  return getRecord(ctx, CalendarEvent, id, 'event');
}

function pick(input: EventInput): Partial<CalendarEvent> {
  return pickDefined<CalendarEvent>(input as Record<string, unknown>, FIELDS);
}

async function check(ctx: Ctx, input: EventInput): Promise<void> {
  await assertRecordLinks(ctx, input);
}

// Checked on the merged record so a PUT of only `end` cannot move it before the stored start.
function assertOrder(start: Date, end: Date): void {
  if (end.getTime() < start.getTime())
    throw validation('end: must not be before start', [{ path: 'end', error: 'must not be before start' }]);
}

export async function createEvent(
  ctx: Ctx,
  input: EventInput & { title: string; start: Date; end: Date },
): Promise<CalendarEventView> {
  assertOrder(input.start, input.end);
  await check(ctx, input);
  const event = createRecord(ctx, CalendarEvent, {
    type: 'meeting',
    allDay: false,
    attendees: [],
    ownerId: ctx.actor.userId,
    ...pick(input),
  } as CalendarEvent);
  await emitCreate(ctx, event, createdEvent('event', { event: serializeEvent(event) }));
  return serializeEvent(event);
}

export async function updateEvent(ctx: Ctx, id: string, input: EventInput): Promise<CalendarEventView> {
  const event = await getEvent(ctx, id);
  assertOrder(input.start ?? event.start, input.end ?? event.end);
  await check(ctx, input);
  const payload = (changes: Changes) => ({ event: serializeEvent(event), changes });
  await updateWithEvent(ctx, event, pick(input), { type: 'event_updated', entityType: 'event', payload });
  return serializeEvent(event);
}

export const deleteEvent = deleteById(getEvent, 'event', (event) => ({ event: serializeEvent(event) }));

export interface EventListQuery extends PageRequest {
  from?: Date;
  to?: Date;
  ownerId?: string;
  companyId?: string;
  personId?: string;
  leadId?: string;
  dealId?: string;
}

/** Calendar order: earliest start first; from/to bound the start (a bare date `to` means the whole day). */
export async function listEvents(ctx: Ctx, query: EventListQuery) {
  const where: Record<string, unknown> = {};
  for (const key of ['ownerId', 'companyId', 'personId', 'leadId', 'dealId'] as const)
    if (query[key]) where[key] = query[key];
  const range = dateWhere({ dateFrom: query.from, dateTo: query.to }).createdAt;
  if (range) where.start = range;
  const { items, total } = await findPage(ctx.em, CalendarEvent, where, query, { start: 'asc' });
  return { items: items.map(serializeEvent), total };
}
