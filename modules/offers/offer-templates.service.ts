import type { Ctx } from '../../platform/context';
import { emit } from '../../platform/outbox/emit';
import { type Changes, createdEvent, updateWithEvent } from '../../platform/shared/changes';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { clearOtherDefaults, createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { OfferTemplate } from './offer.entity';
import type { OfferTemplateSummaryView, OfferTemplateView } from './offers.views';
import { deleteById, getRecord } from '../../platform/shared/record-service';

export interface OfferTemplateInput {
  name?: string;
  description?: string | null;
  pages?: unknown[];
  headerElements?: unknown[];
  footerElements?: unknown[];
  branding?: Record<string, unknown>;
  defaultTerms?: string | null;
  defaultPaymentTerms?: string | null;
  defaultValidity?: number | null;
  isDefault?: boolean;
  isActive?: boolean;
}

const SUMMARY = [
  '_id',
  'name',
  'description',
  'isDefault',
  'isActive',
  'defaultValidity',
  'createdAt',
  'updatedAt',
] as const;
const FULL = [
  ...SUMMARY,
  'pages',
  'headerElements',
  'footerElements',
  'branding',
  'defaultTerms',
  'defaultPaymentTerms',
] as const;

/** The list shows summaries (no pages or elements) plus the page count. */
export const templateSummary = (t: OfferTemplate): OfferTemplateSummaryView => ({
  ...plainOf(t, SUMMARY),
  pageCount: t.pages.length,
});
export const serializeOfferTemplate = (t: OfferTemplate): OfferTemplateView => plainOf(t, FULL);

export function getOfferTemplate(ctx: Ctx, id: string): Promise<OfferTemplate> {
  return getRecord(ctx, OfferTemplate, id, 'offer template');
}

export async function listOfferTemplates(ctx: Ctx, query: PageRequest & { includeInactive?: boolean }) {
  const { items, total } = await findPage(
    ctx.em,
    OfferTemplate,
    query.includeInactive ? {} : { isActive: true },
    query,
    { createdAt: 'desc' },
  );
  return { items: items.map(templateSummary), total };
}

export async function createOfferTemplate(ctx: Ctx, input: OfferTemplateInput & { name: string }) {
  return inTransaction(ctx, async () => {
    const t = createRecord(ctx, OfferTemplate, {
      name: input.name,
      description: input.description ?? null,
      pages: input.pages ?? [],
      headerElements: input.headerElements ?? [],
      footerElements: input.footerElements ?? [],
      branding: input.branding ?? {},
      defaultTerms: input.defaultTerms ?? null,
      defaultPaymentTerms: input.defaultPaymentTerms ?? null,
      defaultValidity: input.defaultValidity ?? null,
      isDefault: input.isDefault ?? false,
      isActive: input.isActive ?? true,
    });
    if (t.isDefault) await clearOtherDefaults(ctx, OfferTemplate, t._id);
    emit(ctx, { ...createdEvent('offer_template', { offerTemplate: templateSummary(t) }), entityId: t._id });
    ctx.em.persist(t);
    return serializeOfferTemplate(t);
  });
}

export async function updateOfferTemplate(ctx: Ctx, id: string, input: OfferTemplateInput) {
  const t = await getOfferTemplate(ctx, id);
  return inTransaction(ctx, async () => {
    const payload = (changes: Changes) => ({ offerTemplate: templateSummary(t), changes: Object.keys(changes) });
    const event = { type: 'offer_template_updated', entityType: 'offer_template', payload } as const;
    const changes = await updateWithEvent(ctx, t, { ...input } as Partial<OfferTemplate>, event, { flush: false });
    // A native update runs at once; the event is inserted by the transaction's flush.
    if (changes && input.isDefault === true) await clearOtherDefaults(ctx, OfferTemplate, t._id);
    return serializeOfferTemplate(t);
  });
}

export const deleteOfferTemplate = deleteById(getOfferTemplate, 'offer_template', (t) => ({
  offerTemplate: templateSummary(t),
}));

/** A copy named "<name> (copy)", never the default. */
export async function duplicateOfferTemplate(ctx: Ctx, id: string) {
  const t = await getOfferTemplate(ctx, id);
  const clone = structuredClone({
    pages: t.pages,
    headerElements: t.headerElements,
    footerElements: t.footerElements,
    branding: t.branding,
  });
  return createOfferTemplate(ctx, {
    ...clone,
    name: `${t.name} (copy)`.slice(0, 200),
    description: t.description,
    defaultTerms: t.defaultTerms,
    defaultPaymentTerms: t.defaultPaymentTerms,
    defaultValidity: t.defaultValidity,
    isDefault: false,
    isActive: t.isActive,
  });
}
