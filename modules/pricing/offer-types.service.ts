import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Ctx } from '../../platform/context';
import { notFound, validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { type Changes, createdEvent, updateWithEvent } from '../../platform/shared/changes';
import { deleteById } from '../../platform/shared/record-service';
import { findPage, likePattern, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type { OfferTypeValidationView, OfferTypeView, SimulationView } from './pricing.views';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { isId } from '../../platform/ids';
import { evaluatePricing, type EvaluateInput } from './engine';
import { AmountRangeError } from '../../platform/shared/money';
import { OfferType } from './offer-type.entity';
import type { CreateOfferTypeInput, PatchOfferTypeInput, SimulateInput } from './offer-types.schemas';
import type { InputField, PricingRules, PricingRulesInput } from './pricing.schemas';
import { normalizePricing, summarizeRule, validateOfferType, type ValidationReport } from './validate';

const FIELDS = [
  '_id',
  'name',
  'slug',
  'description',
  'isDefault',
  'isActive',
  'defaultTemplateId',
  'requiredInputFields',
  'pricingRules',
  'offerSettings',
  'customPlaceholders',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;

export function serializeOfferType(type: OfferType, opts: { describe?: boolean } = {}): OfferTypeView {
  return {
    ...plainOf(type, FIELDS),
    ...(opts.describe ? { ruleSummaries: type.pricingRules.rules.map(summarizeRule) } : {}),
  };
}

export async function getOfferType(ctx: Ctx, id: string): Promise<OfferType> {
  const type = isId(id) ? await ctx.em.findOne(OfferType, { _id: id }) : null;
  if (!type) throw notFound('offer type');
  return type;
}

export async function listOfferTypes(ctx: Ctx, query: PageRequest & { includeInactive?: boolean }) {
  const where = query.includeInactive ? {} : { isActive: true };
  const { items, total } = await findPage(ctx.em, OfferType, where, query, { createdAt: 'desc' });
  return { items: items.map((t) => serializeOfferType(t)), total };
}

/** Full check of fields + rules; errors answer 400 with every `details[{ path, error }]`. */
export function assertValid(fields: InputField[], pricing: PricingRules): ValidationReport {
  const report = validateOfferType(fields, pricing);
  const first = report.errors[0];
  if (first) throw validation(`body.${first.path}: ${first.error}`, report.errors);
  return report;
}

export function slugify(name: string): string {
  const base = name
    .toLowerCase()
    .replaceAll('æ', 'ae')
    .replaceAll('ø', 'oe')
    .replaceAll('å', 'aa')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 90)
    .replace(/-+$/, '');
  return base || 'offer-type';
}

/** The name's slug, or the slug with the lowest free -<n> suffix. */
async function uniqueSlug(ctx: Ctx, name: string): Promise<string> {
  const base = slugify(name);
  const taken = new Set(
    (await ctx.em.find(OfferType, { slug: { $like: `${likePattern(base).slice(1, -1)}%` } }, { fields: ['slug'] })).map(
      (t) => t.slug,
    ),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

async function assertSlugFree(ctx: Ctx, slug: string, exceptId?: string): Promise<void> {
  const other = await ctx.em.findOne(OfferType, { slug, ...(exceptId ? { _id: { $ne: exceptId } } : {}) });
  if (other)
    throw validation(`body.slug: "${slug}" is already used by another offer type`, [
      { path: 'slug', error: 'is already used by another offer type' },
    ]);
}

/** Only one default per workspace: making one the default clears the flag elsewhere (same transaction). */
const summary = (type: OfferType) => ({ _id: type._id, name: type.name, slug: type.slug });

async function clearOtherDefaults(ctx: Ctx, exceptId: string): Promise<void> {
  await ctx.em.nativeUpdate(
    OfferType,
    { workspaceId: ctx.actor.workspaceId, isDefault: true, _id: { $ne: exceptId } },
    { isDefault: false },
  );
}

export async function createOfferType(ctx: Ctx, input: CreateOfferTypeInput) {
  const requiredInputFields = input.requiredInputFields ?? [];
  const pricingRules = normalizePricing(input.pricingRules);
  assertValid(requiredInputFields, pricingRules);
  // Two creates may pick the same generated slug at once: the unique index refuses one, which retries.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await insertOfferType(ctx, input, requiredInputFields, pricingRules);
    } catch (err) {
      if (
        input.slug ||
        attempt >= 5 ||
        !(err instanceof UniqueConstraintViolationException) ||
        !/slug/.test(err.message)
      )
        throw err;
      ctx.em.clear();
    }
  }
}

async function insertOfferType(
  ctx: Ctx,
  input: CreateOfferTypeInput,
  requiredInputFields: InputField[],
  pricingRules: PricingRules,
) {
  return inTransaction(ctx, async () => {
    await assertTemplateExists(ctx, input.defaultTemplateId);
    if (input.slug) await assertSlugFree(ctx, input.slug);
    const type = createRecord(ctx, OfferType, {
      name: input.name,
      slug: input.slug ?? (await uniqueSlug(ctx, input.name)),
      description: input.description ?? null,
      isDefault: input.isDefault ?? false,
      isActive: input.isActive ?? true,
      defaultTemplateId: input.defaultTemplateId ?? null,
      requiredInputFields,
      pricingRules,
      offerSettings: input.offerSettings ?? {},
      customPlaceholders: input.customPlaceholders ?? [],
      createdBy: ctx.actor.userId,
    });
    if (type.isDefault) await clearOtherDefaults(ctx, type._id);
    emit(ctx, { ...createdEvent('offer_type', { offerType: summary(type) }), entityId: type._id });
    return serializeOfferType(type, { describe: true });
  });
}

/**
 * PATCH: pricing settings merge (vatRate, currency, vatDisplayMode); `rules`, `products` and `requiredInputFields`
 * replace whole arrays.
 */
export async function patchOfferType(ctx: Ctx, id: string, input: PatchOfferTypeInput) {
  const type = await getOfferType(ctx, id);
  const requiredInputFields = input.requiredInputFields ?? type.requiredInputFields;
  const pricingRules = input.pricingRules
    ? normalizePricing(input.pricingRules as PricingRulesInput, type.pricingRules)
    : type.pricingRules;
  if (input.requiredInputFields || input.pricingRules) assertValid(requiredInputFields, pricingRules);
  return inTransaction(ctx, async () => {
    await assertTemplateExists(ctx, input.defaultTemplateId);
    if (input.slug && input.slug !== type.slug) await assertSlugFree(ctx, input.slug, type._id);
    const patch = {
      name: input.name,
      slug: input.slug,
      description: input.description,
      isDefault: input.isDefault,
      isActive: input.isActive,
      defaultTemplateId: input.defaultTemplateId,
      offerSettings: input.offerSettings,
      customPlaceholders: input.customPlaceholders,
      ...(input.requiredInputFields ? { requiredInputFields } : {}),
      ...(input.pricingRules ? { pricingRules } : {}),
    } as Partial<OfferType>;
    const payload = (changes: Changes) => ({ offerType: summary(type), changes: Object.keys(changes) });
    const changes = await updateWithEvent(
      ctx,
      type,
      patch,
      { type: 'offer_type_updated', entityType: 'offer_type', payload },
      { flush: false },
    );
    // A native update runs at once; the event is inserted by the transaction's flush.
    if (changes?.isDefault && type.isDefault) await clearOtherDefaults(ctx, type._id);
    return serializeOfferType(type, { describe: true });
  });
}

export const deleteOfferType = deleteById(getOfferType, 'offer_type', (type) => ({ offerType: summary(type) }));

/** Read-only check of a draft: never throws for rule problems, reports them. */
export function validateDraft(input: {
  requiredInputFields?: InputField[];
  pricingRules?: PricingRulesInput;
}): OfferTypeValidationView {
  const pricing = normalizePricing(input.pricingRules);
  const report = validateOfferType(input.requiredInputFields ?? [], pricing);
  return { valid: report.errors.length === 0, ...report, normalizedRules: pricing.rules };
}

/** Input-value problems (wrong type, not an option) are a 400; missing required values only warn here. */
export function runEvaluation(input: EvaluateInput, where: string) {
  let result: ReturnType<typeof evaluatePricing>;
  try {
    result = evaluatePricing(input);
  } catch (err) {
    if (err instanceof AmountRangeError) throw validation(`${err.message}; use smaller prices or quantities`);
    throw err;
  }
  const first = result.inputErrors[0];
  if (first) {
    const details = result.inputErrors.map((e) => ({ path: e.path.replace(/^fields\./, `${where}.`), error: e.error }));
    throw validation(`body.${details[0]!.path}: ${first.error}`, details);
  }
  return result;
}

export async function simulate(ctx: Ctx, input: SimulateInput): Promise<SimulationView> {
  let fields: InputField[];
  let pricing: PricingRules;
  if (input.offerTypeId) {
    const type = await getOfferType(ctx, input.offerTypeId);
    fields = type.requiredInputFields;
    pricing = type.pricingRules;
  } else {
    fields = input.offerType?.requiredInputFields ?? [];
    pricing = normalizePricing(input.offerType?.pricingRules);
    const report = validateOfferType(fields, pricing, {
      fields: 'offerType.requiredInputFields',
      rules: 'offerType.pricingRules.rules',
      products: 'offerType.pricingRules.products',
    });
    const first = report.errors[0];
    if (first) throw validation(`body.${first.path}: ${first.error}`, report.errors);
  }
  const { inputErrors: _e, ...result } = runEvaluation(
    {
      inputFields: fields,
      pricing,
      fields: input.fields ?? {},
      lines: input.lines,
      customer: input.customer,
      offer: input.offer,
      products: input.products,
    },
    'fields',
  );
  return result;
}

/**
 * `defaultTemplateId` must name an offer template of the workspace (tenant-filtered count). The template is the
 * offers module's entity, named by its ORM name: offers build on offer types (offers import pricing), so pricing
 * holds only this data reference, not an import of offers.
 */
async function assertTemplateExists(ctx: Ctx, id: string | null | undefined): Promise<void> {
  if (id && !(await ctx.em.count<{ _id: string }>('OfferTemplate', { _id: id }))) {
    throw validation(`defaultTemplateId: no offer template with id ${id}`, [
      { path: 'defaultTemplateId', error: `no offer template with id ${id}` },
    ]);
  }
}
