import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import { isId } from '../../platform/ids';
import { assertRefs, recordSystemActivity } from '../timeline';
import { emit } from '../../platform/outbox/emit';
import { deleteWithEvent, updateWithEvent } from '../../platform/shared/changes';
import { findPage, likeAny, type PageRequest } from '../../platform/shared/listing';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { OfferType } from '../pricing';
import { DEFAULT_CURRENCY, fromMinor, minorDigits } from '../../platform/shared/money';
import { computeLines, lineView, MoneyError, type LineInput } from './offer-lines';
import { Offer, OfferTemplate, type OfferStatus } from './offer.entity';
import { getOfferSettings, takeOfferNumber } from './offer-settings.service';
import { buildSnapshot, related } from './offer-snapshot';
import { effectiveStatus, offerCanMove, offerStatusTransitions, todayUtc } from './offers.rules';
import type { OfferInput, OfferView } from './offers.schemas';
import { plainOf } from '../../platform/shared/views';
import { findRowById } from '../../platform/orm/lean-rows';

/** Where public links point: `${publicBaseUrl}/public/offers/<publicId>`. */
export interface OfferLinks {
  publicBaseUrl: string;
}

export const publicOfferUrl = (links: OfferLinks, publicId: string): string =>
  `${links.publicBaseUrl}/public/offers/${publicId}`;

/** What a draft's edit may set as given (besides validUntil and currency); the view shows them after `_id`. */
const EDITABLE = [
  'title',
  'offerTypeId',
  'templateId',
  'companyRef',
  'personRef',
  'dealRef',
  'quoteInput',
  'calculatorResult',
] as const;

const PLAIN = [
  '_id',
  ...EDITABLE,
  'currency',
  'subtotalMinor',
  'vatMinor',
  'totalMinor',
  'validUntil',
  'offerNumber',
  'publicId',
  'ownerId',
  'sentAt',
  'cancelledAt',
  'respondedAt',
  'response',
  'viewCount',
  'firstViewedAt',
  'createdAt',
  'updatedAt',
] as const;

export function serializeOffer(offer: Offer, links: OfferLinks): OfferView {
  const digits = minorDigits(offer.currency);
  return {
    ...plainOf(offer, PLAIN),
    kind: 'offer',
    status: effectiveStatus(offer),
    lineItems: offer.lineItems.map((l) => lineView(l, digits)),
    subtotal: fromMinor(offer.subtotalMinor, digits),
    vatAmount: fromMinor(offer.vatMinor, digits),
    total: fromMinor(offer.totalMinor, digits),
    publicUrl: offer.publicId ? publicOfferUrl(links, offer.publicId) : null,
  };
}

/** GET :id: by `_id` or `publicId`, one prepared select without the ORM (domain/orm/lean.ts); 404 as getOffer. */
export async function readOffer(ctx: Ctx, id: string, links: OfferLinks): Promise<OfferView> {
  const where = { where: { kind: 'offer' } };
  const offer = await findRowById(ctx, Offer, id, isId(id) ? where : { ...where, by: 'publicId' });
  if (!offer) throw notFound('offer');
  return serializeOffer(offer, links);
}

/** By `_id` or by `publicId`; 404 for unknown or another workspace's. */
export async function getOffer(ctx: Ctx, id: string): Promise<Offer> {
  const offer = isId(id)
    ? await ctx.em.findOne(Offer, { _id: id, kind: 'offer' })
    : await ctx.em.findOne(Offer, { publicId: id, kind: 'offer' });
  if (!offer) throw notFound('offer');
  return offer;
}

export interface OfferListQuery extends PageRequest {
  status?: OfferStatus;
  companyRef?: string;
  personRef?: string;
  dealRef?: string;
  q?: string;
}

export async function listOffers(ctx: Ctx, query: OfferListQuery, links: OfferLinks) {
  const where: Record<string, unknown> = { kind: 'offer' };
  const today = todayUtc();
  // expired is derived (sent + validUntil passed), so sent excludes those rows.
  if (query.status === 'expired') Object.assign(where, { status: 'sent', validUntil: { $lt: today } });
  else if (query.status === 'sent')
    Object.assign(where, { status: 'sent', $or: [{ validUntil: null }, { validUntil: { $gte: today } }] });
  else if (query.status) where.status = query.status;
  for (const key of ['companyRef', 'personRef', 'dealRef'] as const) if (query[key]) where[key] = query[key];
  if (query.q) where.$and = [{ $or: likeAny(query.q, ['title', 'offerNumber']) }];
  const { items, total } = await findPage(ctx.em, Offer, where, query, { createdAt: 'desc' });
  return { items: items.map((o) => serializeOffer(o, links)), total };
}

async function checkRefs(ctx: Ctx, input: OfferInput): Promise<void> {
  await assertRefs(ctx, [
    { field: 'companyRef', kind: 'company', id: input.companyRef },
    { field: 'personRef', kind: 'person', id: input.personRef },
    { field: 'dealRef', kind: 'deal', id: input.dealRef },
  ]);
  if (input.templateId && !(await ctx.em.count(OfferTemplate, { _id: input.templateId }))) {
    throw validation(`templateId: no offer template with id ${input.templateId}`, [
      { path: 'templateId', error: `no offer template with id ${input.templateId}` },
    ]);
  }
  if (input.offerTypeId && !(await ctx.em.count(OfferType, { _id: input.offerTypeId }))) {
    throw validation(`offerTypeId: no offer type with id ${input.offerTypeId}`, [
      { path: 'offerTypeId', error: `no offer type with id ${input.offerTypeId}` },
    ]);
  }
}

function priced(items: LineInput[], defaultVatRate: number, currency: string) {
  try {
    return computeLines(items, { defaultVatRate, currency });
  } catch (err) {
    if (err instanceof MoneyError)
      throw validation(`${err.path}: ${err.message}`, [{ path: err.path, error: err.message }]);
    throw err;
  }
}

async function settingsDefaults(ctx: Ctx): Promise<{ vatRate: number; currency: string; validityDays: number }> {
  const defaults = ((await getOfferSettings(ctx)).defaults ?? {}) as Record<string, unknown>;
  return {
    vatRate: typeof defaults.vatRate === 'number' ? defaults.vatRate : 25,
    currency: typeof defaults.currency === 'string' ? defaults.currency : DEFAULT_CURRENCY,
    validityDays: typeof defaults.defaultValidityDays === 'number' ? defaults.defaultValidityDays : 30,
  };
}

const eventPayload = (view: Record<string, unknown>) => ({ offer: view });

export async function createOffer(
  ctx: Ctx,
  input: OfferInput & { title: string },
  links: OfferLinks,
): Promise<Record<string, unknown>> {
  await checkRefs(ctx, input);
  const defaults = await settingsDefaults(ctx);
  const currency = input.currency ?? defaults.currency;
  const { lines, totals } = priced(input.lineItems ?? [], defaults.vatRate, currency);
  const offer = createRecord(ctx, Offer, {
    kind: 'offer',
    title: input.title,
    status: 'draft',
    offerTypeId: input.offerTypeId ?? null,
    templateId: input.templateId ?? null,
    companyRef: input.companyRef ?? null,
    personRef: input.personRef ?? null,
    dealRef: input.dealRef ?? null,
    quoteInput: input.quoteInput ?? null,
    calculatorResult: input.calculatorResult ?? null,
    lineItems: lines,
    currency,
    ...totals,
    validUntil: input.validUntil ?? null,
    offerNumber: null,
    publicId: null,
    snapshot: null,
    ownerId: ctx.actor.userId,
    sentAt: null,
    cancelledAt: null,
    respondedAt: null,
    response: null,
    viewCount: 0,
    firstViewedAt: null,
  });
  const view = serializeOffer(offer, links);
  emit(ctx, { type: 'offer_created', entityType: 'offer', entityId: offer._id, payload: eventPayload(view) });
  recordSystemActivity(ctx, linkOf(offer), 'record_created', `Offer created: ${offer.title}`, { offerId: offer._id });
  await ctx.em.flush();
  return view;
}

const linkOf = (offer: Offer) => ({
  entityType: 'offer',
  entityId: offer._id,
  companyId: offer.companyRef,
  personId: offer.personRef,
  dealId: offer.dealRef,
});

function assertDraft(offer: Offer, what: string): void {
  const status = effectiveStatus(offer);
  if (status !== 'draft')
    throw new DomainError('invalid_state', `status: the offer is ${status}; only drafts can be ${what}`, {
      current: status,
      allowed: ['draft'],
    });
}

// Edits and deletes hold the row lock, so one racing a send sees the sent offer and answers 409.
export async function updateOffer(
  ctx: Ctx,
  id: string,
  input: OfferInput,
  links: OfferLinks,
): Promise<Record<string, unknown>> {
  const found = await getOffer(ctx, id);
  assertDraft(found, 'edited');
  await checkRefs(ctx, input);
  return inTransaction(ctx, async () => {
    const offer = await lockOffer(ctx, found._id);
    assertDraft(offer, 'edited');
    const patch: Partial<Offer> = {};
    for (const key of [...EDITABLE, 'validUntil', 'currency'] as const) {
      if (input[key] !== undefined) (patch as Record<string, unknown>)[key] = input[key];
    }
    if (input.lineItems !== undefined || input.currency !== undefined) {
      const defaults = await settingsDefaults(ctx);
      // A currency change re-prices the kept lines (minor-unit digits may differ).
      const items: LineInput[] =
        input.lineItems ??
        offer.lineItems.map((l) => ({
          ...l,
          name: l.name ?? undefined,
          description: l.description ?? undefined,
          unit: l.unit ?? undefined,
          productId: l.productId ?? undefined,
        }));
      const { lines, totals } = priced(items, defaults.vatRate, input.currency ?? offer.currency);
      Object.assign(patch, { lineItems: lines, ...totals });
    }
    await updateWithEvent(
      ctx,
      offer,
      patch,
      {
        type: 'offer_updated',
        entityType: 'offer',
        payload: (changes) => ({ ...eventPayload(serializeOffer(offer, links)), changes: Object.keys(changes) }),
      },
      { flush: false },
    );
    return serializeOffer(offer, links);
  });
}

export async function deleteOffer(ctx: Ctx, id: string, links: OfferLinks): Promise<void> {
  const found = await getOffer(ctx, id);
  await inTransaction(ctx, async () => {
    const offer = await lockOffer(ctx, found._id);
    assertDraft(offer, 'deleted');
    await deleteWithEvent(
      ctx,
      offer,
      { type: 'offer_deleted', entityType: 'offer', payload: eventPayload(serializeOffer(offer, links)) },
      { flush: false },
    );
  });
}

/** 128 random bits, URL-safe: the public link's capability. */
export const newPublicId = (): string => randomBytes(16).toString('base64url');

/** Namespaces automations read besides `offer` (deal, company). */
export async function offerEventPayload(ctx: Ctx, offer: Offer, links: OfferLinks) {
  const { company, deal } = await related(ctx, offer);
  return {
    ...eventPayload(serializeOffer(offer, links)),
    ...(deal ? { deal: { _id: deal._id, title: deal.title, value: deal.value } } : {}),
    ...(company ? { company: { _id: company._id, name: company.name } } : {}),
  };
}

const invalidState = (current: OfferStatus, requested: OfferStatus, message: string) =>
  new DomainError('invalid_state', message, {
    current,
    requested,
    allowed: offerStatusTransitions.allowedFrom(current),
  });

/** The row locked for this transaction and re-read from it (not from the identity map). */
export async function lockOffer(ctx: Ctx, id: string): Promise<Offer> {
  const [row] = await ctx.em.execute<{ status: OfferStatus; valid_until: string | null }[]>(
    'select status, valid_until from offers where id = ? and workspace_id = ? for update',
    [id, ctx.actor.workspaceId],
  );
  const offer = row ? await ctx.em.findOne(Offer, { _id: id }, { refresh: true }) : null;
  if (!row || !offer) throw notFound('offer');
  // The locked row is the truth (a concurrent transaction may have committed since the entity was loaded).
  offer.status = row.status;
  offer.validUntil = row.valid_until;
  return offer;
}

/**
 * draft → sent: next offer number (race-free), publicId, immutable snapshot, a timeline row on
 * the linked records and `offer_sent` (automations; the `offer.sent` webhook), in one transaction.
 */
export async function sendOffer(ctx: Ctx, id: string, links: OfferLinks): Promise<Record<string, unknown>> {
  const found = await getOffer(ctx, id);
  return inTransaction(ctx, async () => {
    // Re-read under a row lock: two concurrent sends of one draft send it once.
    const offer = await lockOffer(ctx, found._id);
    // The table allows staying in a state; sending twice is not that.
    const current = effectiveStatus(offer);
    if (!offerCanMove(current, 'sent'))
      throw invalidState(current, 'sent', `status: the offer is ${current}; only drafts can be sent`);
    if (!offer.lineItems.length)
      throw validation('lineItems: an offer needs at least one line item to be sent', [
        { path: 'lineItems', error: 'at least one line item is required to send' },
      ]);
    const settings = await getOfferSettings(ctx);
    const now = new Date();
    offer.offerNumber = await takeOfferNumber(ctx);
    offer.publicId = newPublicId();
    offer.status = 'sent';
    offer.sentAt = now;
    if (!offer.validUntil) {
      const days = Number((settings.defaults as Record<string, unknown> | undefined)?.defaultValidityDays ?? 30);
      offer.validUntil = todayUtc(new Date(now.getTime() + days * 86_400_000));
    }
    offer.snapshot = await buildSnapshot(ctx, offer, settings);
    offer.updatedAt = now;
    recordSystemActivity(ctx, linkOf(offer), 'offer_sent', `Offer ${offer.offerNumber} sent: ${offer.title}`, {
      offerId: offer._id,
      offerNumber: offer.offerNumber,
      total: fromMinor(offer.totalMinor, minorDigits(offer.currency)),
      currency: offer.currency,
    });
    emit(ctx, {
      type: 'offer_sent',
      entityType: 'offer',
      entityId: offer._id,
      payload: await offerEventPayload(ctx, offer, links),
    });
    return serializeOffer(offer, links);
  });
}

export async function cancelOffer(ctx: Ctx, id: string, links: OfferLinks): Promise<Record<string, unknown>> {
  const found = await getOffer(ctx, id);
  return inTransaction(ctx, async () => {
    const offer = await lockOffer(ctx, found._id);
    const current = effectiveStatus(offer);
    if (!offerCanMove(current, 'cancelled'))
      throw invalidState(
        current,
        'cancelled',
        `status: the offer is ${current}; only draft or sent offers can be cancelled`,
      );
    const now = new Date();
    offer.status = 'cancelled';
    offer.cancelledAt = now;
    offer.updatedAt = now;
    recordSystemActivity(ctx, linkOf(offer), 'offer_cancelled', `Offer cancelled: ${offer.title}`, {
      offerId: offer._id,
      offerNumber: offer.offerNumber,
    });
    emit(ctx, {
      type: 'offer_cancelled',
      entityType: 'offer',
      entityId: offer._id,
      payload: await offerEventPayload(ctx, offer, links),
    });
    return serializeOffer(offer, links);
  });
}

export { linkOf as offerTimelineLink };
