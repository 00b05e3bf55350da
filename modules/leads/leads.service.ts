import type { Ctx } from '../../platform/context';
import { emitRecordCreated, emitRecordUpdated } from '../timeline';
import { applyPatch, normalizeTags } from '../../platform/shared/changes';
import { mergeObject } from '../../platform/shared/custom-fields';
import { assertCustomFieldValues } from '../custom-fields';
import { dateWhere, likeAny, type DateFilterInput, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { PreviewResult } from '../../platform/shared/preview';
import {
  deleteWithDetach,
  findSyncPage,
  getRecord,
  previewAnswer,
  readRecord,
} from '../../platform/shared/record-service';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Lead } from './lead.entity';
import { assertCompanyRef, assertPersonRef, assertUsers } from './refs';
import { computeScore, subjectFor } from './lead-scoring.service';
import { scoreChanged } from './scoring';
import { routeOwner } from './lead-routing.service';
import { LEAD_FIELDS, type LeadInput, type LeadView } from './leads.schemas';

export const serializeLead = (l: Lead): LeadView => plainOf(l, LEAD_FIELDS);

export function readLead(ctx: Ctx, id: string): Promise<LeadView> {
  return readRecord(ctx, Lead, id, 'lead', serializeLead);
}

export function getLead(ctx: Ctx, id: string): Promise<Lead> {
  return getRecord(ctx, Lead, id, 'lead');
}

function scalarFields(input: LeadInput): Partial<Lead> {
  const { customFields: _c, tags: _t, ...scalars } = input;
  return scalars as Partial<Lead>;
}

const feedLink = (lead: Lead) => ({ leadId: lead._id, entityType: 'lead', entityId: lead._id });

/**
 * Creates a lead: references checked, score computed from the active rules, and — when no ownerId
 * is given — the owner taken from the first matching routing rule (else the caller).
 */
export async function createLead(
  ctx: Ctx,
  input: LeadInput & { title: string },
  opts: { preview: boolean },
): Promise<LeadView | PreviewResult> {
  await assertCompanyRef(ctx, input.companyRef);
  await assertPersonRef(ctx, input.personRef);
  if (input.ownerId) await assertUsers(ctx, [input.ownerId], 'ownerId');
  await assertCustomFieldValues(ctx, 'lead', input.customFields ?? {}, { requireAll: true });
  const data = {
    ...scalarFields(input),
    title: input.title,
    status: input.status ?? 'new',
    customFields: mergeObject({}, input.customFields ?? {}),
    tags: normalizeTags(input.tags) ?? [],
  };
  const subject = await subjectFor(ctx.em, data);
  const { score, breakdown } = await computeScore(ctx.em, subject);
  const build = async (preview: boolean): Promise<Lead> => {
    const routed = input.ownerId ? null : await routeOwner(ctx, { ...subject, lead: { ...data, score } }, { preview });
    return createRecord(ctx, Lead, {
      ...data,
      score,
      scoreBreakdown: breakdown,
      ownerId: input.ownerId ?? routed ?? ctx.actor.userId,
    });
  };
  if (opts.preview) {
    return previewAnswer(ctx, null, serializeLead(await build(true)));
  }
  // The round-robin cursor advance and the insert commit together.
  return inTransaction(ctx, async () => {
    const lead = await build(false);
    await emitRecordCreated(
      ctx,
      lead,
      { type: 'lead_created', entityType: 'lead', payload: { lead: serializeLead(lead) } },
      {
        link: { ...feedLink(lead), companyId: lead.companyRef, personId: lead.personRef },
        summary: `Lead ${lead.title} created`,
      },
      { flush: false },
    );
    return serializeLead(lead);
  });
}

export async function updateLead(
  ctx: Ctx,
  id: string,
  input: LeadInput,
  opts: { preview: boolean },
): Promise<LeadView | PreviewResult> {
  const lead = await getLead(ctx, id);
  if (input.companyRef !== undefined && input.companyRef !== lead.companyRef)
    await assertCompanyRef(ctx, input.companyRef);
  if (input.personRef !== undefined && input.personRef !== lead.personRef) await assertPersonRef(ctx, input.personRef);
  if (input.ownerId && input.ownerId !== lead.ownerId) await assertUsers(ctx, [input.ownerId], 'ownerId');
  if (input.customFields !== undefined) await assertCustomFieldValues(ctx, 'lead', input.customFields);
  const current = serializeLead(lead);
  const patch: Partial<Lead> = {
    ...scalarFields(input),
    ...(input.customFields !== undefined ? { customFields: mergeObject(lead.customFields, input.customFields) } : {}),
    ...(input.tags !== undefined ? { tags: normalizeTags(input.tags) } : {}),
  };
  const beforeTags = [...lead.tags];
  const changes = applyPatch(lead, patch);
  const result = await computeScore(ctx.em, await subjectFor(ctx.em, lead));
  // The score is part of the change set (automations may react to it); its breakdown is derived.
  // Assigned only when it differs, so a no-op PUT writes nothing (jsonb reorders keys on read).
  if (scoreChanged(lead, result)) lead.scoreBreakdown = result.breakdown;
  Object.assign(changes, applyPatch(lead, { score: result.score }));
  if (opts.preview) return previewAnswer(ctx, current, serializeLead(lead));
  const payload = () => ({ lead: serializeLead(lead), changes });
  // A score breakdown alone (no change set) is still written.
  await emitRecordUpdated(
    ctx,
    lead,
    changes,
    beforeTags,
    { type: 'lead_updated', entityType: 'lead', payload },
    { link: feedLink(lead), summary: `Lead ${lead.title} updated` },
    { flush: false },
  );
  await ctx.em.flush();
  return serializeLead(lead);
}

/**
 * Deleting a lead unlinks the deals that referenced it; their own records stay. Deals build on leads (a deal's
 * leadRef names one; deals import leads), so the deals' rows are named by their ORM entity name, not imported.
 */
export async function deleteLead(ctx: Ctx, id: string): Promise<void> {
  const lead = await getLead(ctx, id);
  await deleteWithDetach(
    ctx,
    lead,
    { type: 'lead_deleted', entityType: 'lead', payload: { lead: serializeLead(lead) } },
    () =>
      ctx.em.nativeUpdate<{ workspaceId: string; leadRef: string | null }>(
        'Deal',
        { workspaceId: ctx.actor.workspaceId, leadRef: id },
        { leadRef: null },
      ),
  );
}

export interface LeadListQuery extends PageRequest, DateFilterInput {
  status?: string;
  source?: string;
  search?: string;
  ownerId?: string;
}

export async function listLeads(ctx: Ctx, query: LeadListQuery) {
  const where: Record<string, unknown> = { ...dateWhere(query) };
  if (query.status) where.status = query.status;
  if (query.source) where.source = query.source;
  if (query.ownerId) where.ownerId = query.ownerId;
  if (query.search) where.$or = likeAny(query.search, ['title', 'email', 'phone', 'source']);
  const { items, total } = await findSyncPage(ctx, Lead, where, query);
  return { items: items.map(serializeLead), total };
}
