import { z } from 'zod';
import { pageParams } from '../../platform/shared/list-query';
import { clearableText, requiredText } from '../../platform/shared/schemas';
import { recordView } from '../presets';
import { refField } from '../../platform/shared/record-fields';
import { openObjectView } from '../../platform/shared/views';
import { jsonObject, num, OFFER_JSON_MAX_BYTES, priceField, vatRateField } from './offers.schemas';
import { ref } from '../../platform/references/refs';

// Offer templates, products and catalog entries: request bodies and views.

const text = (max: number) => clearableText(max).optional();

const elements = (what: string) => z.array(z.unknown()).max(500, `at most 500 ${what}`);
const templateFields = {
  description: text(5000),
  pages: z
    .array(
      z
        .object({
          id: z.string().max(100).optional(),
          order: z.number().int().min(0).max(10_000).optional(),
          title: z.string().max(300).optional(),
          elements: elements('elements').optional(),
          settings: z.record(z.string(), z.unknown()).optional(),
        })
        .catchall(z.unknown()),
    )
    .max(100, 'at most 100 pages'),
  headerElements: elements('header elements'),
  footerElements: elements('footer elements'),
  branding: jsonObject('branding'),
  defaultTerms: text(50_000),
  defaultPaymentTerms: text(20_000),
  defaultValidity: z.number().int('must be an integer').min(1).max(3650).nullable().describe('days'),
  isDefault: z.boolean(),
  isActive: z.boolean(),
};
const TEMPLATE_MAX_BYTES = 1024 * 1024;
const templateSize = (v: unknown) => Buffer.byteLength(JSON.stringify(v)) <= TEMPLATE_MAX_BYTES;
export const createOfferTemplateBody = z
  .object({ name: requiredText(200) })
  .extend(z.object(templateFields).partial().shape)
  .refine(templateSize, 'the template must be at most 1 MB of JSON');
export const updateOfferTemplateBody = z
  .object({ name: requiredText(200), ...templateFields })
  .partial()
  .refine(templateSize, 'the template must be at most 1 MB of JSON');
export const listTemplatesQuery = z.object({
  ...pageParams(100),
  includeInactive: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true'),
});

const tier = z.object({
  minQuantity: num().min(0),
  maxQuantity: num().min(0).nullable().optional(),
  unitPrice: priceField,
});
const productFields = {
  description: text(5000),
  sku: text(100),
  unitPrice: priceField,
  unit: text(50),
  vatRate: vatRateField.nullable(),
  pricingType: z.enum(['fixed', 'advanced'], { message: 'must be fixed or advanced' }),
  tieredPricing: z.array(tier).max(100, 'at most 100 tiers'),
  conditionalRules: z
    .array(z.record(z.string(), z.unknown()))
    .max(100, 'at most 100 rules')
    .refine((v) => Buffer.byteLength(JSON.stringify(v)) <= OFFER_JSON_MAX_BYTES, 'must be at most 64 KB of JSON'),
  variants: z
    .array(
      z.object({ name: requiredText(200), unitPrice: priceField.optional(), sku: text(100) }).catchall(z.unknown()),
    )
    .max(200, 'at most 200 variants'),
  category: text(200),
  isActive: z.boolean(),
};
export const createProductBody = z.object({ name: requiredText(300) }).extend(z.object(productFields).partial().shape);
export const updateProductBody = createProductBody.partial();
export const listProductsQuery = z.object({
  ...pageParams(100),
  q: z.string().trim().min(1).max(200).optional(),
  category: z.string().trim().min(1).max(200).optional(),
  isActive: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => (v === undefined ? undefined : v === 'true')),
});
export const productView = z.object({
  ...recordView,
  name: z.string(),
  description: z.string().nullable(),
  sku: z.string().nullable(),
  unitPrice: z.number(),
  unit: z.string().nullable(),
  vatRate: z.number().nullable(),
  pricingType: z.enum(['fixed', 'advanced']),
  tieredPricing: z.array(
    z.object({
      minQuantity: z.number(),
      maxQuantity: z.number().nullable().optional().describe('absent or null: no upper limit'),
      unitPrice: z.number(),
    }),
  ),
  conditionalRules: z.array(openObjectView).describe('price rules as given (open objects)'),
  variants: z.array(
    z
      .object({ name: z.string(), unitPrice: z.number().optional(), sku: z.string().nullable().optional() })
      .catchall(z.unknown())
      .describe('other keys are kept as given'),
  ),
  category: z.string().nullable(),
  isActive: z.boolean(),
});

const catalogFields = {
  description: text(5000),
  category: text(200),
  productId: ref('product', refField).describe('the product this entry sells (must exist)'),
  sku: text(100),
  unitPrice: priceField,
  unit: text(50),
  vatRate: vatRateField.nullable(),
  imageUrl: z
    .url({ protocol: /^https$/, message: 'must be an https URL' })
    .max(2000)
    .nullable(),
  sortOrder: z.number().int('must be an integer').min(0).max(1_000_000),
  isActive: z.boolean(),
};
export const createCatalogBody = z.object({ name: requiredText(300) }).extend(z.object(catalogFields).partial().shape);
export const updateCatalogBody = createCatalogBody.partial();
export const catalogView = z.object({
  ...recordView,
  name: z.string(),
  description: z.string().nullable(),
  category: z.string().nullable(),
  productId: z.string().nullable(),
  sku: z.string().nullable(),
  unitPrice: z.number(),
  unit: z.string().nullable(),
  vatRate: z.number().nullable(),
  imageUrl: z.string().nullable(),
  sortOrder: z.number().int(),
  isActive: z.boolean(),
});

export type ProductView = z.infer<typeof productView>;
export type CatalogView = z.infer<typeof catalogView>;

/** What the service writes: the parsed updateProductBody (create bodies add their required fields). */
export type ProductInput = z.infer<typeof updateProductBody>;

/** What the service writes: the parsed updateCatalogBody (create bodies add their required fields). */
export type CatalogInput = z.infer<typeof updateCatalogBody>;
