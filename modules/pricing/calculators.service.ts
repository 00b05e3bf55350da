import type { Ctx } from '../../platform/context';
import { forbidden, notFound, validation } from '../../platform/errors';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import type {
  CalculationView,
  CalculatorSubmissionView,
  CalculatorTemplateSummaryView,
  CalculatorTemplateView,
} from './pricing.views';
import { createRecord } from '../../platform/shared/records';
import { isId } from '../../platform/ids';
import { fromMinor } from '../../platform/shared/money';
import { CalculatorSubmission, OfferType } from './offer-type.entity';
import type { CalculateInput } from './offer-types.schemas';
import { runEvaluation } from './offer-types.service';
import { createdEvent, emitCreate } from '../../platform/shared/changes';

// Calculator templates are the workspace's active offer types seen from the calculator side (same
// id): their input fields are the calculator's inputs, their pricing rules its formula. They are
// created, changed and retired through /offer-types. `calculate` is stateless unless `save: true`,
// which stores a calculator submission (inputs and result, frozen).

function templateFields(type: OfferType) {
  const { vatRate, currency, vatDisplayMode } = type.pricingRules;
  return {
    _id: type._id,
    offerTypeId: type._id,
    name: type.name,
    slug: type.slug,
    description: type.description ?? null,
    isDefault: type.isDefault,
    inputFields: type.requiredInputFields,
    vatRate,
    currency,
    vatDisplayMode,
    createdAt: type.createdAt.toISOString(),
    updatedAt: type.updatedAt.toISOString(),
  };
}

/** A list row: the rule count instead of the rules. */
export const serializeTemplateSummary = (type: OfferType): CalculatorTemplateSummaryView => ({
  ...templateFields(type),
  ruleCount: type.pricingRules.rules.length,
});

/** One template with its pricing rules. */
export function serializeTemplate(type: OfferType): CalculatorTemplateView {
  const { rules, products, vatRate, currency, vatDisplayMode } = type.pricingRules;
  return { ...templateFields(type), pricingRules: { rules, products, vatRate, currency, vatDisplayMode } };
}

async function activeTemplate(ctx: Ctx, id: string): Promise<OfferType> {
  const type = isId(id) ? await ctx.em.findOne(OfferType, { _id: id, isActive: true }) : null;
  if (!type) throw notFound('calculator template');
  return type;
}

export async function listTemplates(ctx: Ctx, query: PageRequest) {
  const { items, total } = await findPage(ctx.em, OfferType, { isActive: true }, query, { createdAt: 'desc' });
  return { items: items.map(serializeTemplateSummary), total };
}

export async function getTemplate(ctx: Ctx, id: string) {
  return serializeTemplate(await activeTemplate(ctx, id));
}

export async function calculate(ctx: Ctx, id: string, input: CalculateInput): Promise<CalculationView> {
  if (input.save && !ctx.actor.scopes.includes('write'))
    throw forbidden('save: true stores a submission and needs the write scope');
  const type = await activeTemplate(ctx, id);
  const result = runEvaluation(
    {
      inputFields: type.requiredInputFields,
      pricing: type.pricingRules,
      fields: input.inputs,
      lines: input.lines,
      customer: input.customer,
      offer: input.offer,
      products: input.products,
    },
    'inputs',
  );
  if (result.missingFields.length) {
    const details = result.missingFields.map((f) => ({ path: `inputs.${f}`, error: 'is required' }));
    throw validation(`body.${details[0]!.path}: is required`, details);
  }
  const { inputErrors: _e, missingFields: _m, ...data } = result;
  if (!input.save) return { templateId: type._id, ...data };
  const context = {
    lines: input.lines ?? [],
    customer: input.customer ?? {},
    offer: input.offer ?? {},
    products: input.products ?? [],
  };
  const submission = createRecord(ctx, CalculatorSubmission, {
    templateId: type._id,
    templateName: type.name,
    offerId: input.offerId ?? null,
    inputs: input.inputs,
    context,
    result: data,
    subtotal: data.amountsMinor.subtotal,
    total: data.amountsMinor.total,
    currency: data.currency,
    blocked: data.blocked,
    createdBy: ctx.actor.userId,
  });
  await emitCreate(
    ctx,
    submission,
    createdEvent('calculator_submission', {
      submission: { _id: submission._id, templateId: type._id, offerId: submission.offerId },
    }),
  );
  return { templateId: type._id, submissionId: submission._id, ...data };
}

const SUBMISSION_FIELDS = [
  '_id',
  'templateId',
  'templateName',
  'offerId',
  'inputs',
  'context',
  'result',
  'currency',
  'blocked',
  'createdBy',
  'createdAt',
] as const;
export const serializeSubmission = (s: CalculatorSubmission): CalculatorSubmissionView => ({
  ...plainOf(s, SUBMISSION_FIELDS),
  subtotal: fromMinor(s.subtotal),
  total: fromMinor(s.total),
});

export async function listSubmissions(ctx: Ctx, query: PageRequest & { templateId?: string; offerId?: string }) {
  const where: Record<string, unknown> = {};
  if (query.templateId) where.templateId = query.templateId;
  if (query.offerId) where.offerId = query.offerId;
  const { items, total } = await findPage(ctx.em, CalculatorSubmission, where, query, { createdAt: 'desc' });
  return { items: items.map(serializeSubmission), total };
}
