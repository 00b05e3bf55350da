import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { StoredLine } from './offer-lines';

export const OFFER_STATUSES = ['draft', 'sent', 'accepted', 'declined', 'cancelled', 'expired'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** What the recipient did on the public link (name typed, when, from where). */
export interface OfferResponse {
  decision: 'accepted' | 'declined';
  name: string | null;
  email: string | null;
  comment: string | null;
  at: string;
  ip: string | null;
  userAgent: string | null;
}

// `kind` keeps room for contracts sharing the shape; this module only writes 'offer'. Money is
// integer minor units (bigint columns, exact sums); `expired` is derived on read from validUntil.
export const Offer = defineEntity({
  name: 'Offer',
  tableName: 'offers',
  indexes: workspaceIndexes('createdAt', 'status', 'companyRef', 'dealRef'),
  properties: {
    ...tenantProps,
    kind: p.string().length(20).default('offer'),
    title: p.string().length(300),
    status: p.string().length(20).$type<OfferStatus>().default('draft'),
    offerTypeId: p.string().length(24).nullable(),
    templateId: p.string().length(24).nullable(),
    companyRef: p.string().length(24).nullable(),
    personRef: p.string().length(24).nullable(),
    dealRef: p.string().length(24).nullable(),
    quoteInput: p.json<Record<string, unknown>>().nullable(),
    calculatorResult: p.json<Record<string, unknown>>().nullable(),
    lineItems: p.json<StoredLine[]>().defaultRaw(`'[]'`),
    currency: p.string().length(3),
    subtotalMinor: p.bigint('number').default(0),
    vatMinor: p.bigint('number').default(0),
    totalMinor: p.bigint('number').default(0),
    /** Inclusive last day (YYYY-MM-DD, UTC). */
    validUntil: p.string().length(10).nullable(),
    offerNumber: p.string().length(60).nullable(),
    publicId: p.string().length(40).nullable().unique(),
    snapshot: p.json<Record<string, unknown>>().nullable(),
    ownerId: p.string().length(24),
    sentAt: p.datetime().nullable(),
    cancelledAt: p.datetime().nullable(),
    respondedAt: p.datetime().nullable(),
    response: p.json<OfferResponse>().nullable(),
    viewCount: p.integer().default(0),
    firstViewedAt: p.datetime().nullable(),
  },
});
export type Offer = InferEntity<typeof Offer>;

/** One row per workspace: the settings document (numbering lives in it, advanced by one UPDATE). */
export const OfferSettings = defineEntity({
  name: 'OfferSettings',
  tableName: 'offer_settings',
  properties: {
    ...tenantProps,
    workspaceId: p.string().length(24).unique(),
    settings: p.json<Record<string, unknown>>(),
  },
});
export type OfferSettings = InferEntity<typeof OfferSettings>;

export const OfferTemplate = defineEntity({
  name: 'OfferTemplate',
  tableName: 'offer_template',
  indexes: workspaceIndexes('createdAt'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    description: p.text().nullable(),
    pages: p.json<unknown[]>().defaultRaw(`'[]'`),
    headerElements: p.json<unknown[]>().defaultRaw(`'[]'`),
    footerElements: p.json<unknown[]>().defaultRaw(`'[]'`),
    branding: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    defaultTerms: p.text().nullable(),
    defaultPaymentTerms: p.text().nullable(),
    defaultValidity: p.integer().nullable(),
    isDefault: p.boolean().default(false),
    isActive: p.boolean().default(true),
  },
});
export type OfferTemplate = InferEntity<typeof OfferTemplate>;

export const PRICING_TYPES = ['fixed', 'advanced'] as const;
export type PricingType = (typeof PRICING_TYPES)[number];

/** A quantity tier of a product's price. */
export type ProductTier = { minQuantity: number; maxQuantity?: number | null; unitPrice: number };
/** A product variant; keys beyond name, unitPrice and sku are kept as given. */
export type ProductVariant = { [key: string]: unknown; name: string; unitPrice?: number; sku?: string | null };

export const OfferProduct = defineEntity({
  name: 'OfferProduct',
  tableName: 'offer_product',
  indexes: workspaceIndexes('createdAt', 'category'),
  properties: {
    ...tenantProps,
    name: p.string().length(300),
    description: p.text().nullable(),
    sku: p.string().length(100).nullable(),
    unitPrice: p.double().$type<number>().default(0),
    unit: p.string().length(50).nullable(),
    vatRate: p.double().$type<number>().nullable(),
    pricingType: p.string().length(10).$type<PricingType>().default('fixed'),
    tieredPricing: p.json<ProductTier[]>().defaultRaw(`'[]'`),
    conditionalRules: p.json<Record<string, unknown>[]>().defaultRaw(`'[]'`),
    variants: p.json<ProductVariant[]>().defaultRaw(`'[]'`),
    category: p.string().length(200).nullable(),
    isActive: p.boolean().default(true),
  },
});
export type OfferProduct = InferEntity<typeof OfferProduct>;

/** A price-list entry offered to customers; may point at the product it sells. */
export const CatalogItem = defineEntity({
  name: 'CatalogItem',
  tableName: 'catalog_item',
  indexes: workspaceIndexes('sortOrder', 'category'),
  properties: {
    ...tenantProps,
    name: p.string().length(300),
    description: p.text().nullable(),
    category: p.string().length(200).nullable(),
    productId: p.string().length(24).nullable(),
    sku: p.string().length(100).nullable(),
    unitPrice: p.double().$type<number>().default(0),
    unit: p.string().length(50).nullable(),
    vatRate: p.double().$type<number>().nullable(),
    imageUrl: p.string().length(2000).nullable(),
    sortOrder: p.integer().default(0),
    isActive: p.boolean().default(true),
  },
});
export type CatalogItem = InferEntity<typeof CatalogItem>;
