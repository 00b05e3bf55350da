import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { InputField, PricingRules } from './pricing.schemas';

/**
 * An offer type: input fields and pricing rules (the rule engine's program), plus offer settings.
 * Active offer types are also the workspace's calculator templates (same id).
 */
export const OfferType = defineEntity({
  name: 'OfferType',
  tableName: 'offer_type',
  indexes: workspaceIndexes('createdAt'),
  uniques: [{ properties: ['workspaceId', 'slug'] }],
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    slug: p.string().length(120),
    description: p.text().nullable(),
    isDefault: p.boolean().default(false),
    isActive: p.boolean().default(true),
    // An offer template id; stored as given until offer templates exist to check it against.
    defaultTemplateId: p.string().length(24).nullable(),
    requiredInputFields: p.json<InputField[]>(),
    pricingRules: p.json<PricingRules>(),
    offerSettings: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    customPlaceholders: p.json<unknown[]>().defaultRaw(`'[]'`),
    createdBy: p.string().length(24),
  },
});
export type OfferType = InferEntity<typeof OfferType>;

/** A saved calculator run (`calculate` with `save: true`): inputs and the engine's result, frozen. */
export const CalculatorSubmission = defineEntity({
  name: 'CalculatorSubmission',
  tableName: 'calculator_submission',
  indexes: workspaceIndexes('createdAt', ['templateId', 'createdAt'], 'offerId'),
  properties: {
    ...tenantProps,
    templateId: p.string().length(24),
    templateName: p.string().length(200),
    offerId: p.string().length(24).nullable(),
    inputs: p.json<Record<string, unknown>>(),
    context: p.json<Record<string, unknown>>(),
    result: p.json<Record<string, unknown>>(),
    subtotal: p.bigint('number'),
    total: p.bigint('number'),
    currency: p.string().length(3),
    blocked: p.boolean().default(false),
    createdBy: p.string().length(24),
  },
});
export type CalculatorSubmission = InferEntity<typeof CalculatorSubmission>;
