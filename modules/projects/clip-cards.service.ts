import { raw } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { assertRefs } from '../timeline';
import {
  createdEvent,
  deleteWithEvent,
  emitCreate,
  updatedEvent,
  updateWithEvent,
} from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { ClipCard, type ClipCardStatus } from './project.entity';
import { clipCardRemaining, clipCardStatus } from './project-rules';
import type { ClipCardInput, ClipCardView } from './clip-cards.schemas';
import { getRecord } from '../../platform/shared/record-service';

const STORED = [
  '_id',
  'projectId',
  'title',
  'totalHours',
  'usedHours',
  'hourlyRate',
  'allowOverdraft',
  'overdraftRate',
  'expiresAt',
  'notes',
  'cancelledAt',
  'createdAt',
  'updatedAt',
] as const;

/** `project` is the spec's write name; the view carries both project and projectId. */
export function serializeClipCard(card: ClipCard, now: Date = new Date()): ClipCardView {
  const remainingHours = clipCardRemaining(card);
  return {
    ...plainOf(card, STORED),
    project: card.projectId,
    status: clipCardStatus(card, now),
    remainingHours,
    overdraftHours: Math.max(0, Math.round((card.usedHours - card.totalHours) * 10_000) / 10_000),
  };
}

export function getClipCard(ctx: Ctx, id: string): Promise<ClipCard> {
  return getRecord(ctx, ClipCard, id, 'clip card');
}

function scalars(input: ClipCardInput): Partial<ClipCard> {
  const out: Record<string, unknown> = {};
  for (const key of [
    'title',
    'totalHours',
    'hourlyRate',
    'allowOverdraft',
    'overdraftRate',
    'expiresAt',
    'notes',
  ] as const) {
    if (input[key] !== undefined) out[key] = input[key];
  }
  return out as Partial<ClipCard>;
}

export async function createClipCard(
  ctx: Ctx,
  input: ClipCardInput & { project: string; totalHours: number; hourlyRate: number },
): Promise<ClipCardView> {
  await assertRefs(ctx, [{ field: 'project', kind: 'project', id: input.project }]);
  const card = createRecord(ctx, ClipCard, {
    projectId: input.project,
    usedHours: 0,
    allowOverdraft: false,
    ...scalars(input),
    cancelledAt: null,
  } as ClipCard);
  await emitCreate(ctx, card, createdEvent('clip_card', { clipCard: serializeClipCard(card) }));
  return serializeClipCard(card);
}

/**
 * status `cancelled` cancels; status `active` lifts a cancellation (the other statuses follow from hours and dates).
 */
export async function updateClipCard(ctx: Ctx, id: string, input: ClipCardInput): Promise<ClipCardView> {
  const card = await getClipCard(ctx, id);
  if (input.project !== undefined && input.project !== card.projectId) {
    throw validation('project: a clip card cannot move to another project', [
      { path: 'project', error: 'cannot change' },
    ]);
  }
  const patch: Partial<ClipCard> = scalars(input);
  if (input.status === 'cancelled' && !card.cancelledAt) patch.cancelledAt = new Date();
  if (input.status === 'active') patch.cancelledAt = null;
  await updateWithEvent(
    ctx,
    card,
    patch,
    updatedEvent('clip_card', (changes) => ({ clipCard: serializeClipCard(card), changes: Object.keys(changes) })),
  );
  return serializeClipCard(card);
}

export async function deleteClipCard(ctx: Ctx, id: string): Promise<void> {
  const card = await getClipCard(ctx, id);
  const payload = { clipCard: serializeClipCard(card) };
  await deleteWithEvent(ctx, card, { type: 'clip_card_deleted', entityType: 'clip_card', payload });
}

const usedUp = () => raw((alias: string) => `(${alias}.used_hours >= ${alias}.total_hours)`) as unknown as string;

/** The status filter mirrors clipCardStatus in SQL so paging and totals stay exact. */
function statusWhere(status: ClipCardStatus, now: Date): Record<string, unknown> {
  const notExpired = { $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }] };
  switch (status) {
    case 'cancelled':
      return { cancelledAt: { $ne: null } };
    case 'expired':
      return { cancelledAt: null, expiresAt: { $lte: now } };
    case 'depleted':
      return { cancelledAt: null, ...notExpired, allowOverdraft: false, [usedUp()]: true };
    case 'active':
      return { cancelledAt: null, ...notExpired, $and: [{ $or: [{ allowOverdraft: true }, { [usedUp()]: false }] }] };
  }
}

export async function listClipCards(ctx: Ctx, query: PageRequest & { status?: ClipCardStatus; projectId?: string }) {
  const now = new Date();
  const where: Record<string, unknown> = query.status ? statusWhere(query.status, now) : {};
  if (query.projectId) where.projectId = query.projectId;
  const { items, total } = await findPage(ctx.em, ClipCard, where, query, { createdAt: 'desc' });
  return { items: items.map((c) => serializeClipCard(c, now)), total };
}
