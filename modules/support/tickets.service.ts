import type { FilterQuery } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { assertRefs, assertUsers } from '../timeline';
import { Company } from '../companies';
import { Person } from '../people';
import { emit } from '../../platform/outbox/emit';
import { applyPatch, emitTagChanges, normalizeTags, type Changes } from '../../platform/shared/changes';
import { deleteWithDetach } from '../../platform/shared/record-service';
import { mergeObject } from '../../platform/shared/custom-fields';
import { findPage, likeAny, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { previewOf, type PreviewResult } from '../../platform/shared/preview';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { SupportTicket, SupportTicketMessage, SupportTimeEntry } from './support.entity';
import { ensureSupportFlow, nextTicketNumber } from './support-flow.service';
import {
  assertCategory,
  assertStage,
  FALLBACK_CATEGORY,
  statusEvent,
  ticketStatusTransitions,
  type TicketPriority,
  type TicketStatus,
} from './support.rules';
import type { TicketInput, TicketPreviewView, TicketView } from './support.schemas';
import { getRecord } from '../../platform/shared/record-service';

export const TICKET_FIELDS = [
  '_id',
  'ticketNumber',
  'title',
  'description',
  'status',
  'priority',
  'category',
  'assignee',
  'company',
  'personRef',
  'customerEmail',
  'customerName',
  'visitorId',
  'tags',
  'customFields',
  'resolution',
  'flowId',
  'stageId',
  'source',
  'unreadCount',
  'lastActivityAt',
  'firstResponseAt',
  'resolvedAt',
  'closedAt',
  'createdAt',
  'updatedAt',
] as const;
export const serializeTicket = (t: SupportTicket): TicketView => plainOf(t, TICKET_FIELDS);

export function getTicket(ctx: Ctx, id: string): Promise<SupportTicket> {
  return getRecord(ctx, SupportTicket, id, 'support ticket');
}

/** Event payload: the ticket plus the person and company namespaces automations read. */
export async function ticketEventPayload<E extends Record<string, unknown> = Record<never, never>>(
  ctx: Ctx,
  t: SupportTicket,
  extra: E = {} as E,
) {
  const person = t.personRef ? await ctx.em.findOne(Person, { _id: t.personRef }) : null;
  const company = t.company ? await ctx.em.findOne(Company, { _id: t.company }) : null;
  return {
    ticket: serializeTicket(t),
    ...(person
      ? {
          person: {
            _id: person._id,
            firstName: person.firstName,
            lastName: person.lastName,
            email: person.emails[0]?.email ?? null,
          },
        }
      : {}),
    ...(company ? { company: { _id: company._id, name: company.name } } : {}),
    ...(t.assignee ? { owner: { _id: t.assignee } } : {}),
    ...extra,
  };
}

async function checkInput(ctx: Ctx, input: TicketInput, categories: readonly string[]): Promise<void> {
  await assertRefs(ctx, [
    { field: 'company', kind: 'company', id: input.company },
    { field: 'personRef', kind: 'person', id: input.personRef },
  ]);
  if (input.assignee) await assertUsers(ctx, 'assignee', [input.assignee]);
  if (input.category !== undefined) assertCategory(categories, input.category);
}

/** The customer's address: given, else the person's first e-mail. */
async function customerOf(
  ctx: Ctx,
  input: TicketInput,
): Promise<{ customerEmail: string | null; customerName: string | null; company: string | null }> {
  const person = input.personRef ? await ctx.em.findOne(Person, { _id: input.personRef }) : null;
  return {
    customerEmail: input.customerEmail?.toLowerCase() ?? person?.emails[0]?.email?.toLowerCase() ?? null,
    customerName: input.customerName ?? (person ? [person.firstName, person.lastName].filter(Boolean).join(' ') : null),
    company: input.company ?? person?.companyId ?? null,
  };
}

export async function createTicket(
  ctx: Ctx,
  input: TicketInput & { title: string },
  opts: { preview: boolean; source?: 'api' | 'email' },
): Promise<{ ticket: SupportTicket; view: TicketView | PreviewResult }> {
  const flow = await ensureSupportFlow(ctx);
  await checkInput(ctx, input, flow.categories);
  const customer = await customerOf(ctx, input);
  const now = new Date();
  const build = (ticketNumber: number) =>
    createRecord(ctx, SupportTicket, {
      ticketNumber,
      title: input.title,
      description: input.description ?? null,
      status: 'open',
      priority: input.priority ?? 'medium',
      category: input.category ?? flow.categories[0] ?? FALLBACK_CATEGORY,
      assignee: input.assignee ?? null,
      personRef: input.personRef ?? null,
      ...customer,
      visitorId: input.visitorId ?? null,
      tags: normalizeTags(input.tags) ?? [],
      customFields: mergeObject({}, input.customFields ?? {}),
      resolution: null,
      flowId: flow._id,
      stageId: flow.stages[0]!.id,
      source: opts.source ?? 'api',
      unreadCount: 0,
      lastActivityAt: now,
      firstResponseAt: null,
      resolvedAt: null,
      closedAt: null,
    } as SupportTicket);
  if (opts.preview) {
    const proposed: TicketPreviewView = { ...serializeTicket(build(0)), ticketNumber: null };
    ctx.em.clear();
    return { ticket: null as never, view: previewOf(null, proposed) };
  }
  const ticket = await inTransaction(ctx, async () => {
    const t = build(await nextTicketNumber(ctx, flow._id));
    emit(ctx, {
      type: 'support_ticket_created',
      entityType: 'support-ticket',
      entityId: t._id,
      payload: await ticketEventPayload(ctx, t),
    });
    emitTagChanges(ctx, 'support-ticket', t._id, [], t.tags);
    return t;
  });
  return { ticket, view: serializeTicket(ticket) };
}

/** Applies a status change with its timestamps (resolvedAt, closedAt; cleared on reopen). */
export function setStatus(t: SupportTicket, to: TicketStatus, at: Date): void {
  if (t.status === to) return;
  ticketStatusTransitions.assert(t.status, to);
  t.status = to;
  if (to === 'resolved') t.resolvedAt = at;
  if (to === 'closed') {
    t.closedAt = at;
    t.resolvedAt ??= at;
  }
  if (to !== 'resolved' && to !== 'closed') {
    t.resolvedAt = null;
    t.closedAt = null;
  }
}

/** support_ticket_updated plus the status, assignment and stage events the change implies. */
export async function emitTicketChanges(
  ctx: Ctx,
  t: SupportTicket,
  changes: Changes,
  extra: { fromStageId?: number | null; toStageId?: number } = {},
): Promise<void> {
  const payload = await ticketEventPayload(ctx, t, { changes, ...extra });
  emit(ctx, { type: 'support_ticket_updated', entityType: 'support-ticket', entityId: t._id, payload });
  const status = changes.status;
  const statusType = status ? statusEvent(status.from as TicketStatus, status.to as TicketStatus) : null;
  if (statusType) emit(ctx, { type: statusType, entityType: 'support-ticket', entityId: t._id, payload });
  if (changes.assignee && t.assignee)
    emit(ctx, { type: 'support_ticket_assigned', entityType: 'support-ticket', entityId: t._id, payload });
  if (changes.stageId)
    emit(ctx, { type: 'support_ticket_stage_changed', entityType: 'support-ticket', entityId: t._id, payload });
}

export async function updateTicket(
  ctx: Ctx,
  id: string,
  input: TicketInput,
  opts: { preview: boolean },
): Promise<TicketView | PreviewResult> {
  const ticket = await getTicket(ctx, id);
  const flow = await ensureSupportFlow(ctx);
  await checkInput(ctx, input, flow.categories);
  const current = serializeTicket(ticket);
  const beforeTags = [...ticket.tags];
  const now = new Date();
  if (input.status !== undefined) setStatus(ticket, input.status, now);
  const scalars: Record<string, unknown> = {};
  for (const key of [
    'title',
    'description',
    'priority',
    'category',
    'assignee',
    'company',
    'personRef',
    'customerEmail',
    'customerName',
    'visitorId',
    'resolution',
  ] as const) {
    if (input[key] !== undefined)
      scalars[key] = key === 'customerEmail' && input[key] ? String(input[key]).toLowerCase() : input[key];
  }
  applyPatch(ticket, {
    ...scalars,
    ...(input.tags !== undefined ? { tags: normalizeTags(input.tags) } : {}),
    ...(input.customFields !== undefined ? { customFields: mergeObject(ticket.customFields, input.customFields) } : {}),
  } as Partial<SupportTicket>);
  const proposed = serializeTicket(ticket);
  if (opts.preview) {
    ctx.em.clear();
    return previewOf(current, proposed);
  }
  const changes = previewOf(current, proposed).diff;
  if (Object.keys(changes).length) {
    await inTransaction(ctx, async () => {
      ticket.updatedAt = now;
      ticket.lastActivityAt = now;
      await emitTicketChanges(ctx, ticket, changes);
      emitTagChanges(ctx, 'support-ticket', ticket._id, beforeTags, ticket.tags);
    });
  }
  return serializeTicket(ticket);
}

export async function moveTicket(ctx: Ctx, id: string, stageId: number, flowId?: string): Promise<TicketView> {
  const ticket = await getTicket(ctx, id);
  const flow = await ensureSupportFlow(ctx);
  if (flowId !== undefined && flowId !== flow._id)
    throw validation(`flowId: no support flow with id ${flowId}`, [{ path: 'flowId', error: 'unknown support flow' }]);
  assertStage(flow.stages, 'stageId', stageId);
  if (ticket.stageId === stageId) return serializeTicket(ticket);
  const from = ticket.stageId;
  return inTransaction(ctx, async () => {
    ticket.stageId = stageId;
    ticket.updatedAt = new Date();
    ticket.lastActivityAt = ticket.updatedAt;
    await emitTicketChanges(ctx, ticket, { stageId: { from, to: stageId } }, { fromStageId: from, toStageId: stageId });
    return serializeTicket(ticket);
  });
}

/** The ticket goes with its messages and time entries (the e-mails stay in the mailbox). */
export async function deleteTicket(ctx: Ctx, id: string): Promise<void> {
  const ticket = await getTicket(ctx, id);
  const payload = { ticket: serializeTicket(ticket) };
  await deleteWithDetach(
    ctx,
    ticket,
    { type: 'support_ticket_deleted', entityType: 'support-ticket', payload },
    async () => {
      await ctx.em.nativeDelete(SupportTicketMessage, { ticketId: id });
      await ctx.em.nativeDelete(SupportTimeEntry, { ticketId: id });
    },
  );
}

export interface TicketListQuery extends PageRequest {
  status?: TicketStatus;
  priority?: TicketPriority;
  assignee?: string;
  category?: string;
  search?: string;
}

export async function listTickets(ctx: Ctx, query: TicketListQuery) {
  const where: Record<string, unknown> = {};
  for (const key of ['status', 'priority', 'assignee', 'category'] as const)
    if (query[key] !== undefined) where[key] = query[key];
  if (query.search) {
    const or = likeAny(query.search, ['title', 'description', 'customerEmail', 'customerName']);
    const n = /^#?(\d{1,9})$/.exec(query.search.trim());
    if (n) or.push({ ticketNumber: Number(n[1]) });
    where.$or = or;
  }
  const { items, total } = await findPage(ctx.em, SupportTicket, where as FilterQuery<SupportTicket>, query, {
    createdAt: 'desc',
  });
  return { items: items.map(serializeTicket), total };
}
