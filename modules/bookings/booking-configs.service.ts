import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { applyPatch, createdEvent, emitCreate, emitUpdate } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord, pickDefined } from '../../platform/shared/records';
import { User } from '../workspaces';
import { BookingConfig, type BookingAgent, type MeetingType } from './booking.entity';
import type { BookingConfigInput } from './bookings.schemas';
import type { BookingConfigView } from './bookings.views';
import { getRecord } from '../../platform/shared/record-service';

/**
 * Booking configs. The spec shows no create: every workspace gets one default config, created on
 * its first `GET /booking-configs` (owners as agents, Mon-Fri 09:00-17:00 Europe/Copenhagen, one
 * 30-minute meeting type); admins may add more with `POST /booking-configs` (beyond the spec).
 */

export const CONFIG_FIELDS = [
  '_id',
  'name',
  'description',
  'timeZone',
  'location',
  'agents',
  'meetingTypes',
  'bufferBeforeMinutes',
  'bufferAfterMinutes',
  'minimumNoticeMinutes',
  'maxPerDay',
  'slotIntervalMinutes',
  'requiresApproval',
  'approvalDeadlineHours',
  'approvalReminderHours',
  'onApprovalTimeout',
  'approvers',
  'createPerson',
  'createLead',
  'leadSource',
  'publicBookingEnabled',
  'isDefault',
  'createdAt',
  'updatedAt',
] as const;
const WRITABLE = CONFIG_FIELDS.filter((k) => !['_id', 'isDefault', 'createdAt', 'updatedAt'].includes(k));

export const serializeConfig = (c: BookingConfig): BookingConfigView => plainOf(c, CONFIG_FIELDS);

export const DEFAULT_TIME_ZONE = 'Europe/Copenhagen';
const WORKDAY = [{ start: '09:00', end: '17:00' }];
export const DEFAULT_WEEK = { mon: WORKDAY, tue: WORKDAY, wed: WORKDAY, thu: WORKDAY, fri: WORKDAY };
export const DEFAULT_MEETING_TYPES: MeetingType[] = [{ id: 'meeting', name: 'Meeting', durationMinutes: 30 }];

const defaults = (): Omit<
  BookingConfig,
  '_id' | 'workspaceId' | 'createdAt' | 'updatedAt' | 'name' | 'timeZone' | 'agents'
> => ({
  description: null,
  location: null,
  meetingTypes: DEFAULT_MEETING_TYPES,
  bufferBeforeMinutes: 0,
  bufferAfterMinutes: 0,
  minimumNoticeMinutes: 60,
  maxPerDay: null,
  slotIntervalMinutes: 30,
  requiresApproval: false,
  approvalDeadlineHours: 24,
  approvalReminderHours: null,
  onApprovalTimeout: 'reject',
  approvers: [],
  createPerson: true,
  createLead: false,
  leadSource: null,
  publicBookingEnabled: true,
  isDefault: false,
});

async function ensureDefault(ctx: Ctx): Promise<void> {
  if (await ctx.em.count(BookingConfig, { isDefault: true })) return;
  const owners = await ctx.em.find(
    User,
    { role: 'owner' },
    { orderBy: { createdAt: 'asc' }, limit: 5, fields: ['_id'] },
  );
  const agents: BookingAgent[] = owners.map((u) => ({ userId: u._id, weeklyAvailability: DEFAULT_WEEK }));
  const fork = ctx.em.fork({ clear: true });
  fork.setFilterParams('tenant', { workspaceId: ctx.actor.workspaceId });
  try {
    await fork
      .persist(
        createRecord({ ...ctx, em: fork }, BookingConfig, {
          ...defaults(),
          name: 'Default',
          timeZone: DEFAULT_TIME_ZONE,
          agents,
          isDefault: true,
        }),
      )
      .flush();
  } catch (err) {
    // Two first lists raced: the other one created it (one default per workspace, unique index).
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
  }
}

export function getConfig(ctx: Ctx, id: string): Promise<BookingConfig> {
  return getRecord(ctx, BookingConfig, id, 'booking config');
}

export async function listConfigs(ctx: Ctx, page: PageRequest) {
  await ensureDefault(ctx);
  const { items, total } = await findPage(ctx.em, BookingConfig, {}, page, { createdAt: 'asc' });
  return { items: items.map(serializeConfig), total };
}

async function assertUsers(ctx: Ctx, ids: string[], field: string): Promise<void> {
  const unique = [...new Set(ids)];
  if (!unique.length) return;
  const found = await ctx.em.find(User, { _id: { $in: unique } }, { fields: ['_id'] });
  const missing = unique.filter((id) => !found.some((u) => u._id === id));
  if (missing.length)
    throw validation(
      `${field}: no user with id ${missing.join(', ')} in this workspace`,
      missing.map((id) => ({ path: field, error: `unknown user ${id}` })),
    );
}

async function checkRefs(ctx: Ctx, input: BookingConfigInput): Promise<void> {
  if (input.agents)
    await assertUsers(
      ctx,
      input.agents.map((a) => a.userId),
      'agents',
    );
  if (input.approvers) await assertUsers(ctx, input.approvers, 'approvers');
}

/** A reminder is sent before the deadline and after the request: each offset below approvalDeadlineHours (400). */
function checkReminders(deadlineHours: number, reminders: number[] | null | undefined): void {
  const late = (reminders ?? []).filter((h) => h >= deadlineHours);
  if (late.length)
    throw validation(
      `approvalReminderHours: each offset must be less than approvalDeadlineHours (${deadlineHours}); ${late.join(', ')} is not`,
      late.map((h) => ({ path: 'approvalReminderHours', error: `${h} is not below approvalDeadlineHours` })),
    );
}

export async function createConfig(
  ctx: Ctx,
  input: BookingConfigInput & { name: string; timeZone: string },
): Promise<BookingConfigView> {
  await checkRefs(ctx, input);
  checkReminders(input.approvalDeadlineHours ?? defaults().approvalDeadlineHours, input.approvalReminderHours);
  const config = createRecord(ctx, BookingConfig, {
    ...defaults(),
    agents: [],
    ...pickDefined<BookingConfig>(input as Record<string, unknown>, WRITABLE),
  } as BookingConfig);
  await emitCreate(ctx, config, createdEvent('booking_config', { bookingConfig: serializeConfig(config) }));
  return serializeConfig(config);
}

/** PATCH: only the given keys change; arrays (agents, meetingTypes, approvers) are replaced whole. */
export async function updateConfig(ctx: Ctx, id: string, input: BookingConfigInput): Promise<BookingConfigView> {
  const config = await getConfig(ctx, id);
  await checkRefs(ctx, input);
  checkReminders(
    input.approvalDeadlineHours ?? config.approvalDeadlineHours,
    input.approvalReminderHours !== undefined ? input.approvalReminderHours : config.approvalReminderHours,
  );
  const changes = applyPatch(config, pickDefined<BookingConfig>(input as Record<string, unknown>, WRITABLE));
  await emitUpdate(ctx, config, changes, {
    type: 'booking_config_updated',
    entityType: 'booking_config',
    payload: () => ({ bookingConfig: serializeConfig(config), changes: Object.keys(changes) }),
  });
  return serializeConfig(config);
}
