import { z } from 'zod';
import { ref } from '../../platform/references/refs';
import {
  customerSchema,
  fieldValuesSchema,
  inputFieldsSchema,
  inputLineSchema,
  offerContextSchema,
  pricingRulesSchema,
  productSchema,
} from './pricing.schemas';

// Request bodies of /offer-types and /calculator-templates.

const text = (max: number) =>
  z.string({ message: 'must be a string' }).trim().max(max, `must be at most ${max} characters`);
const clearable = (max: number) =>
  text(max)
    .nullable()
    .transform((v) => (v === '' || v === null ? null : v));
const objectId = z.string({ message: 'must be a string' }).regex(/^[0-9a-f]{24}$/, 'must be a 24-character hex id');
const jsonObject = z
  .record(z.string(), z.unknown(), { message: 'must be an object' })
  .refine((o) => JSON.stringify(o).length <= 65_536, 'must be at most 64 KB as JSON');
const placeholders = z
  .array(
    z.object({
      key: z
        .string({ message: 'must be a string' })
        .regex(/^[A-Za-z_][A-Za-z0-9_.]{0,63}$/, 'must be letters, digits, _ or . (at most 64)'),
      label: text(200).optional(),
      defaultValue: z.union([text(5000), z.number(), z.boolean()]).optional(),
      description: text(1000).optional(),
    }),
    { message: 'must be an array of { key, label, defaultValue, description }' },
  )
  .max(100, 'at most 100 placeholders');

const fields = {
  name: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'is required')
    .max(200, 'must be at most 200 characters'),
  slug: z
    .string({ message: 'must be a string' })
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be lowercase letters, digits and single hyphens')
    .max(100, 'must be at most 100 characters'),
  description: clearable(5000),
  isDefault: z.boolean({ message: 'must be a boolean' }),
  isActive: z.boolean({ message: 'must be a boolean' }),
  defaultTemplateId: ref('offer-template', objectId)
    .nullable()
    .or(z.literal('').transform(() => null)),
  requiredInputFields: inputFieldsSchema,
  pricingRules: pricingRulesSchema,
  offerSettings: jsonObject,
  customPlaceholders: placeholders,
};

export const createOfferTypeBody = z.object(fields).partial().extend({ name: fields.name });
export type CreateOfferTypeInput = z.infer<typeof createOfferTypeBody>;
export const patchOfferTypeBody = z.object(fields).partial();
export type PatchOfferTypeInput = z.infer<typeof patchOfferTypeBody>;

export const validateOfferTypeBody = z.object({
  requiredInputFields: inputFieldsSchema.optional(),
  pricingRules: pricingRulesSchema.optional(),
});

const evaluationContext = {
  lines: z.array(inputLineSchema).max(500, 'at most 500 lines').optional(),
  customer: customerSchema.optional(),
  offer: offerContextSchema.optional(),
  products: z.array(productSchema).max(500, 'at most 500 products').optional(),
};

export const simulateBody = z
  .object({
    offerTypeId: ref('offer-type', objectId).optional(),
    offerType: z
      .object({ requiredInputFields: inputFieldsSchema.optional(), pricingRules: pricingRulesSchema.optional() })
      .optional(),
    fields: fieldValuesSchema.optional(),
    ...evaluationContext,
  })
  .refine((b) => Boolean(b.offerTypeId) !== Boolean(b.offerType), {
    message: 'give offerTypeId or offerType (a draft), not both',
    path: ['offerTypeId'],
  });
export type SimulateInput = z.infer<typeof simulateBody>;

export const calculateBody = z.object({
  inputs: z
    .record(z.string(), z.unknown(), {
      error: (issue) =>
        issue.input === undefined ? 'is required (an object of field values)' : 'must be an object of field values',
    })
    .pipe(fieldValuesSchema),
  ...evaluationContext,
  save: z.boolean({ message: 'must be a boolean' }).optional(),
  offerId: ref('offer', objectId).optional(),
});
export type CalculateInput = z.infer<typeof calculateBody>;
