/**
 * Actions that add to a record's timeline: create_note, create_activity, create_task (a calendar
 * event, per the spec) and create_recall (a call-back event). All go through the domain services.
 */
import { createEvent, CalendarEvent, type EventType } from '../../calendar';
import { createNote } from '../../notes';
import { User } from '../../workspaces';
import { parseDateInput, zonedParts, zonedToInstant } from '../../../platform/shared/zoned-time.pure';
import type { Context } from '../engine/types.pure';
import { createActivity } from '../../timeline';
import { phoneOf } from './recipients';
import {
  fail,
  recordIdOf,
  requireTrigger,
  triggerRecord,
  type ActionEnv,
  type ActionHandler,
  type RecordKind,
} from './types';

const NOTE_REF: Record<RecordKind, string> = {
  lead: 'leadRef',
  person: 'personRef',
  company: 'company',
  deal: 'dealRef',
};
const EVENT_LINK: Record<RecordKind, string> = {
  lead: 'leadId',
  person: 'personId',
  company: 'companyId',
  deal: 'dealId',
};

export const createNoteAction: ActionHandler<{ noteContent: string }> = {
  kind: 'crm',
  describe: (c) => `would add a note (${c.noteContent.length} characters) to the trigger record`,
  async run(env, c) {
    const target = requireTrigger(env.input.context, 'create_note');
    const note = await createNote(env.ctx, { content: c.noteContent, [NOTE_REF[target.kind]]: target.id });
    return { output: { noteId: note._id, recordType: target.kind, recordId: target.id } };
  },
};

export const createActivityAction: ActionHandler<{ description: string; activityType: string }> = {
  kind: 'crm',
  describe: (c) => `would add a ${c.activityType} activity to the trigger record's timeline`,
  async run(env, c) {
    const target = requireTrigger(env.input.context, 'create_activity');
    const summary = c.description.length > 200 ? `${c.description.slice(0, 199)}…` : c.description;
    const activity = await createActivity(env.ctx, {
      type: c.activityType,
      summary,
      description: c.description,
      entityType: target.kind,
      entityId: target.id,
    });
    return { output: { activityId: activity._id, recordType: target.kind, recordId: target.id } };
  },
};

/**
 * assignTo → a user of this workspace: owner (of the record, else the trigger's owner), creator, a placeholder, or an
 * id.
 */
async function assignee(env: ActionEnv, assignTo: string, placeholderValue?: string): Promise<string> {
  const context = env.input.context;
  const target = triggerRecord(context);
  let userId: unknown;
  if (assignTo === 'owner') {
    const record = target
      ? (context[target.kind] ?? (target.kind === 'person' ? context.contact : undefined))
      : undefined;
    userId =
      (record as Record<string, unknown> | undefined)?.ownerId ??
      (context.owner as Record<string, unknown> | undefined)?._id ??
      env.ctx.actor.userId;
  } else if (assignTo === 'creator') userId = env.ctx.actor.userId;
  else if (assignTo === 'placeholder') userId = placeholderValue;
  else userId = assignTo;
  if (typeof userId !== 'string' || !/^[0-9a-f]{24}$/.test(userId) || !(await env.em.count(User, { _id: userId }))) {
    return fail(`assignTo: ${JSON.stringify(userId ?? null)} is not a user of this workspace`);
  }
  return userId;
}

function links(context: Context): Record<string, string> {
  const out: Record<string, string> = {};
  const target = triggerRecord(context);
  if (target) out[EVENT_LINK[target.kind]] = target.id;
  for (const kind of ['lead', 'person', 'company', 'deal'] as const) {
    const id = recordIdOf(context, kind);
    if (id && !out[EVENT_LINK[kind]]) out[EVENT_LINK[kind]] = id;
  }
  return out;
}

interface TaskConfig {
  title: string;
  description?: string;
  activityType: EventType;
  priority: string;
  dateScheduleType: 'relative' | 'absolute';
  dueInDays: number;
  time?: string;
  scheduledAt?: string;
  durationMinutes: number;
  assignTo: string;
  assignToPlaceholder?: string;
  calendarAccountId?: string;
  conflictPolicy: 'find_next' | 'skip' | 'create_anyway';
}

/** relative: dueInDays after now, at `time` (workspace zone) when given; absolute: scheduledAt. */
function startOf(c: TaskConfig, now: Date, timezone: string): Date {
  if (c.dateScheduleType === 'absolute') {
    const parsed = parseDateInput(c.scheduledAt, timezone);
    return parsed ? new Date(parsed.ms) : fail(`scheduledAt: ${JSON.stringify(c.scheduledAt)} is not a date`);
  }
  const base = now.getTime() + c.dueInDays * 86_400_000;
  if (!c.time) return new Date(Math.ceil(base / 60_000) * 60_000);
  const [hour, minute] = c.time.split(':').map(Number) as [number, number];
  return new Date(zonedToInstant({ ...zonedParts(base, timezone), hour, minute, second: 0 }, timezone));
}

async function firstConflict(env: ActionEnv, ownerId: string, start: Date, end: Date): Promise<CalendarEvent | null> {
  return env.em.findOne(
    CalendarEvent,
    { ownerId, start: { $lt: end }, end: { $gt: start } },
    { orderBy: { end: 'desc' } },
  );
}

/** How many of the assignee's later events one read takes for find_next. */
const NEXT_START_WINDOW = 200;
/** find_next moves past at most this many overlapping events (a full calendar cannot loop). */
const NEXT_START_STEPS = 50;

/**
 * find_next in one read: the assignee's events from `start` on (by start, NEXT_START_WINDOW of them)
 * and the walk of nextFreeStart over them (walkFreeStart).
 */
async function findNextStart(env: ActionEnv, ownerId: string, start: Date, durationMs: number): Promise<Date> {
  const at = await walkFreeStart(
    {
      window: NEXT_START_WINDOW,
      read: async (from) =>
        (
          await env.em.find(
            CalendarEvent,
            { ownerId, end: { $gt: new Date(from) } },
            { orderBy: { start: 'asc' }, limit: NEXT_START_WINDOW, fields: ['start', 'end'] },
          )
        ).map((e) => ({ start: e.start.getTime(), end: e.end.getTime() })),
      latestOverlapEnd: async (from) =>
        (await firstConflict(env, ownerId, new Date(from), new Date(from + durationMs)))?.end.getTime() ?? null,
    },
    start.getTime(),
    durationMs,
    NEXT_START_STEPS,
  );
  return new Date(at);
}

export interface CalendarReader {
  /** Up to `window` events ending after `from`, by start. */
  read(from: number): Promise<{ start: number; end: number }[]>;
  window: number;
  /** The latest end among the events overlapping [from, from + duration), or null. */
  latestOverlapEnd(from: number): Promise<number | null>;
}

/**
 * The find_next walk over windows of events: a walk that reaches past the events read (a very full
 * calendar) reads the next window from where it stopped; a slot overlapped by more than a window of
 * events moves one step by the latest end among them.
 */
export async function walkFreeStart(cal: CalendarReader, start: number, durationMs: number, steps: number) {
  let at = start;
  let left = steps;
  for (;;) {
    const events = await cal.read(at);
    const complete = events.length < cal.window;
    const walked = nextFreeStart(events, at, durationMs, left, complete ? Infinity : events[events.length - 1]!.start);
    if (walked.done) return walked.start;
    if (walked.start === at) {
      const end = await cal.latestOverlapEnd(at);
      if (end === null || walked.stepsLeft === 0) return at;
      at = Math.max(end, at + 60_000);
      left = walked.stepsLeft - 1;
      continue;
    }
    at = walked.start;
    left = walked.stepsLeft;
  }
}

/**
 * The find_next walk over events sorted by start (all ending after `start`): while the slot
 * [s, s + duration) overlaps events, move s to the latest end among them (at least one minute
 * on), at most `steps` times. `knownUntil`: events starting at or after it were not read, so a slot
 * reaching past it is not decided (done false, with the walk so far).
 */
export function nextFreeStart(
  events: readonly { start: number; end: number }[],
  start: number,
  durationMs: number,
  steps: number,
  knownUntil = Infinity,
): { start: number; done: boolean; stepsLeft: number } {
  let s = start;
  for (let left = steps; ; left--) {
    if (s + durationMs > knownUntil) return { start: s, done: false, stepsLeft: left };
    let latestEnd = -Infinity;
    for (const e of events) {
      if (e.start >= s + durationMs) break;
      if (e.end > s && e.end > latestEnd) latestEnd = e.end;
    }
    if (latestEnd === -Infinity || left === 0) return { start: s, done: true, stepsLeft: left };
    s = Math.max(latestEnd, s + 60_000);
  }
}

export const createTaskAction: ActionHandler<TaskConfig> = {
  kind: 'crm',
  describe: (c) =>
    `would create a ${c.activityType} calendar event "${c.title}" (${c.durationMinutes} min, ${c.dateScheduleType === 'absolute' ? `at ${c.scheduledAt}` : `in ${c.dueInDays} day(s)`})`,
  async run(env, c) {
    const ownerId = await assignee(env, c.assignTo, c.assignToPlaceholder);
    let start = startOf(c, env.now, env.input.timezone);
    const durationMs = c.durationMinutes * 60_000;
    const conflict = await firstConflict(env, ownerId, start, new Date(start.getTime() + durationMs));
    if (conflict && c.conflictPolicy === 'skip') {
      return {
        status: 'skipped',
        output: { skipped: true, reason: 'conflict', conflictingEventId: conflict._id, start: start.toISOString() },
      };
    }
    if (conflict && c.conflictPolicy === 'find_next') start = await findNextStart(env, ownerId, start, durationMs);
    const event = await createEvent(env.ctx, {
      title: c.title,
      description: c.description ?? null,
      type: c.activityType,
      start,
      end: new Date(start.getTime() + durationMs),
      ownerId,
      ...links(env.input.context),
    });
    return {
      output: {
        eventId: event._id,
        start: event.start,
        ownerId,
        priority: c.priority,
        ...(c.calendarAccountId
          ? {
              calendarAccountId: c.calendarAccountId,
              note: 'calendar accounts are not connected: created in the CRM calendar',
            }
          : {}),
      },
    };
  },
};

export const createRecallAction: ActionHandler<{
  title: string;
  message?: string;
  phoneField: string;
  delayDays: number;
  assignTo: string;
}> = {
  kind: 'crm',
  describe: (c) => `would schedule a call-back "${c.title}" in ${c.delayDays} day(s)`,
  async run(env, c) {
    const ownerId = await assignee(env, c.assignTo);
    const phone = phoneOf(env.input.context, c.phoneField);
    const start = new Date(Math.ceil((env.now.getTime() + c.delayDays * 86_400_000) / 60_000) * 60_000);
    const description = [c.message, phone ? `Call ${phone}` : null].filter(Boolean).join('\n') || null;
    const event = await createEvent(env.ctx, {
      title: c.title,
      description,
      type: 'call',
      start,
      end: new Date(start.getTime() + 15 * 60_000),
      ownerId,
      ...links(env.input.context),
    });
    return { output: { eventId: event._id, start: start.toISOString(), phone, ownerId } };
  },
};
