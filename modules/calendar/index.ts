/**
 * The calendar module's public surface: what code outside modules/calendar may import (dependency-cruiser
 * `module-public-surface`). Declaration files (`*.module.ts`, `*.resource.ts`, `*.events.ts`) are read by the
 * registries directly; tests and benches may reach inside.
 */
export { CalendarEvent, type Attendee, type AttendeeStatus, type EventType } from './calendar-event.entity';
export { createEvent, serializeEvent } from './calendar-events.service';
