import { LockMode } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { deleteById, getRecord, previewAnswer, readRecord } from '../../platform/shared/record-service';
import { conflict, validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { Company } from '../companies';
import { assertCustomFieldValues } from '../custom-fields';
import { User } from '../workspaces';
import { recordSystemActivity } from '../timeline';
import { Lead } from '../leads';
import { Person } from '../people';
import {
  applyPatch,
  emitTagChanges,
  emitTaggedCreate,
  normalizeTags,
  type Changes,
} from '../../platform/shared/changes';
import { asRecord, mergeObject } from '../../platform/shared/custom-fields';
import { plainOf } from '../../platform/shared/views';
import { type PreviewResult } from '../../platform/shared/preview';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Deal } from './deal.entity';
import { nextStatus } from './deal-status';
import { FlowStage } from './flow.entity';
import { resolvePlacement, type Placement } from './placement';
import { stageRef, type StageRef } from './flows.service';
import { DEAL_FIELDS, type DealInput, type DealView } from './deals.schemas';

export const serializeDeal = (d: Deal): DealView => plainOf(d, DEAL_FIELDS);

export function readDeal(ctx: Ctx, id: string): Promise<DealView> {
  return readRecord(ctx, Deal, id, 'deal', serializeDeal);
}

export function getDeal(ctx: Ctx, id: string): Promise<Deal> {
  return getRecord(ctx, Deal, id, 'deal');
}

/** References must name records of this workspace (the tenant filter hides the others). */
async function assertReferences(ctx: Ctx, input: DealInput, current?: Deal): Promise<void> {
  const checks: [keyof DealInput, string | null | undefined, () => Promise<number>, string][] = [
    ['company', input.company, () => ctx.em.count(Company, { _id: input.company! }), 'company'],
    ['personRef', input.personRef, () => ctx.em.count(Person, { _id: input.personRef! }), 'person'],
    ['leadRef', input.leadRef, () => ctx.em.count(Lead, { _id: input.leadRef! }), 'lead'],
    ['ownerId', input.ownerId, () => ctx.em.count(User, { _id: input.ownerId! }), 'user in this workspace'],
  ];
  for (const [field, value, count, what] of checks) {
    if (!value || (current && current[field as keyof Deal] === value)) continue;
    if (!(await count())) throw validation(`${field}: no ${what} with id ${value}`);
  }
}

const dropNulls = (o: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

function scalarFields(input: DealInput): Partial<Deal> {
  const { title, value, priority, probability, company, personRef, leadRef, ownerId } = input;
  return { title, value, priority, probability, company, personRef, leadRef, ownerId } as Partial<Deal>;
}

/** Share-locks the target stage until commit, so a concurrent stage delete either waits or wins. */
async function lockStage(ctx: Ctx, stageId: string): Promise<void> {
  const stage = await ctx.em.findOne(FlowStage, { _id: stageId }, { lockMode: LockMode.PESSIMISTIC_READ });
  if (!stage) throw conflict(`stageId: stage ${stageId} was deleted meanwhile; retry`);
}

const link = (d: Deal) => ({
  dealId: d._id,
  companyId: d.company,
  personId: d.personRef,
  leadId: d.leadRef,
  entityType: 'deal',
  entityId: d._id,
});

export async function createDeal(
  ctx: Ctx,
  input: DealInput & { title: string },
  opts: { preview: boolean },
): Promise<DealView | PreviewResult> {
  await assertReferences(ctx, input);
  const customFields = dropNulls(asRecord(input.customFields ?? {}));
  await assertCustomFieldValues(ctx, 'deal', customFields, { requireAll: true });
  const place = await resolvePlacement(ctx, { flowId: input.flowId, stageId: input.stageId }, { dryRun: opts.preview });
  if (!place) throw new Error('unreachable: a new deal always gets a placement');
  const status = nextStatus({
    current: { status: 'open', wonDate: null, lostDate: null },
    currentStageType: null,
    nextStageType: place.stage.type,
    status: input.status,
    wonDate: input.wonDate,
    lostDate: input.lostDate,
    now: new Date(),
  });
  const deal = createRecord(ctx, Deal, {
    ...scalarFields(input),
    ownerId: input.ownerId ?? ctx.actor.userId,
    flowId: place.flowId,
    stageId: place.stage.id,
    customFields,
    tags: normalizeTags(input.tags) ?? [],
    ...status,
  } as Deal);
  if (opts.preview) return previewAnswer(ctx, null, serializeDeal(deal));
  await inTransaction(ctx, async () => {
    await lockStage(ctx, place.stage.id);
    const view = serializeDeal(deal);
    const also = () => {
      if (deal.status !== 'open')
        emit(ctx, {
          type: deal.status === 'won' ? 'deal_won' : 'deal_lost',
          entityType: 'deal',
          entityId: deal._id,
          payload: { deal: view },
        });
      recordSystemActivity(
        ctx,
        link(deal),
        'record_created',
        `Deal ${deal.title} created in stage ${place.stage.title}`,
        { stage: { id: place.stage.id, title: place.stage.title }, flowId: place.flowId },
      );
    };
    await emitTaggedCreate(
      ctx,
      deal,
      { type: 'deal_created', entityType: 'deal', payload: { deal: view } },
      { flush: false, also },
    );
  });
  return serializeDeal(deal);
}

export async function updateDeal(
  ctx: Ctx,
  id: string,
  input: DealInput,
  opts: { preview: boolean },
): Promise<DealView | PreviewResult> {
  const deal = await getDeal(ctx, id);
  await assertReferences(ctx, input, deal);
  if (input.customFields !== undefined) await assertCustomFieldValues(ctx, 'deal', asRecord(input.customFields));
  const fromStage = deal.stageId ? await ctx.em.findOne(FlowStage, { _id: deal.stageId }) : null;
  const place: Placement | null = await resolvePlacement(
    ctx,
    { flowId: input.flowId, stageId: input.stageId },
    { current: deal },
  );
  const stageChanged = place !== null && place.stage.id !== deal.stageId;
  const status = nextStatus({
    current: { status: deal.status, wonDate: deal.wonDate ?? null, lostDate: deal.lostDate ?? null },
    currentStageType: fromStage?.type ?? null,
    nextStageType: stageChanged ? place.stage.type : undefined,
    status: input.status,
    wonDate: input.wonDate,
    lostDate: input.lostDate,
    now: new Date(),
  });
  // All reads are done: from here on the entity is dirty and a query could auto-flush it.
  const current = serializeDeal(deal);
  const beforeTags = [...deal.tags];
  const changes = applyPatch(deal, {
    ...scalarFields(input),
    ...(stageChanged ? { flowId: place.flowId, stageId: place.stage.id } : {}),
    ...(input.customFields !== undefined
      ? { customFields: mergeObject(deal.customFields, asRecord(input.customFields)) }
      : {}),
    ...(input.tags !== undefined ? { tags: normalizeTags(input.tags) } : {}),
    ...status,
  });
  if (opts.preview) return previewAnswer(ctx, current, serializeDeal(deal));
  if (!Object.keys(changes).length) return serializeDeal(deal);
  await inTransaction(ctx, async () => {
    if (stageChanged) await lockStage(ctx, place.stage.id);
    deal.updatedAt = new Date();
    emitUpdateEvents(
      ctx,
      deal,
      changes,
      beforeTags,
      stageChanged ? { from: fromStage ? stageRef(fromStage) : null, to: place.stage } : null,
    );
  });
  return serializeDeal(deal);
}

/** deal_updated for every change; deal_stage_changed, deal_won, deal_lost when those happened; one feed row. */
function emitUpdateEvents(
  ctx: Ctx,
  deal: Deal,
  changes: Changes,
  beforeTags: string[],
  stage: { from: StageRef | null; to: StageRef } | null,
): void {
  const view = serializeDeal(deal);
  emit(ctx, { type: 'deal_updated', entityType: 'deal', entityId: deal._id, payload: { deal: view, changes } });
  const summary = [`Deal ${deal.title} updated`];
  const metadata: Record<string, unknown> = { changes };
  if (stage) {
    const fromStageId = stage.from?.id ?? null;
    emit(ctx, {
      type: 'deal_stage_changed',
      entityType: 'deal',
      entityId: deal._id,
      payload: {
        deal: view,
        fromStageId,
        toStageId: stage.to.id,
        flowId: deal.flowId,
        fromFlowId: stage.from?.flowId ?? null,
      },
    });
    metadata.stage = {
      fromStageId,
      fromTitle: stage.from?.title ?? null,
      toStageId: stage.to.id,
      toTitle: stage.to.title,
      fromFlowId: stage.from?.flowId ?? null,
      toFlowId: deal.flowId,
    };
    summary.push(`moved from ${stage.from?.title ?? '(no stage)'} to ${stage.to.title}`);
  }
  if (changes.status && deal.status !== 'open')
    emit(ctx, {
      type: deal.status === 'won' ? 'deal_won' : 'deal_lost',
      entityType: 'deal',
      entityId: deal._id,
      payload: { deal: view },
    });
  if (changes.status) summary.push(`status ${String(changes.status.from)} → ${deal.status}`);
  emitTagChanges(ctx, 'deal', deal._id, beforeTags, deal.tags);
  recordSystemActivity(ctx, link(deal), 'record_updated', summary.join('; '), metadata);
}

/** POST /deals/:id/move: a stage change through the same rules, events and feed row as PUT. */
export async function moveDeal(ctx: Ctx, id: string, input: { stageId: string; flowId?: string }): Promise<DealView> {
  const result = await updateDeal(ctx, id, { stageId: input.stageId, flowId: input.flowId }, { preview: false });
  if ('preview' in result) throw new Error('unreachable: moveDeal never previews');
  return result;
}

export const deleteDeal = deleteById(getDeal, 'deal', (deal) => ({ deal: serializeDeal(deal) }));

/** A deleted person's deals keep no reference to it (deletePerson's detachRefs, in its transaction). */
export async function detachPersonDeals(ctx: Ctx, personId: string): Promise<void> {
  await ctx.em.nativeUpdate(Deal, { workspaceId: ctx.actor.workspaceId, personRef: personId }, { personRef: null });
}

/** A deleted company's deals keep no reference to it (deleteCompany's detachDeals, in its transaction). */
export async function detachCompanyDeals(ctx: Ctx, companyId: string): Promise<void> {
  await ctx.em.nativeUpdate(Deal, { workspaceId: ctx.actor.workspaceId, company: companyId }, { company: null });
}
