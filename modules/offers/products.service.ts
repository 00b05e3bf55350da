import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import { emit } from '../../platform/outbox/emit';
import { createdEvent, deleteWithEvent, updatedEvent, updateWithEvent } from '../../platform/shared/changes';
import { findPage, likeAny, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { CatalogItem, OfferProduct } from './offer.entity';
import type { CatalogInput, CatalogView, ProductInput, ProductView } from './offer-catalog.schemas';
import { deleteById, getRecord } from '../../platform/shared/record-service';

// Products (offer line building blocks with pricing) and catalog items (the price list a
// workspace shows; each may point at a product). Plain CRUD with an outbox event per write.

export interface CatalogListQuery extends PageRequest {
  q?: string;
  category?: string;
  isActive?: boolean;
}

const PRODUCT_FIELDS = [
  '_id',
  'name',
  'description',
  'sku',
  'unitPrice',
  'unit',
  'vatRate',
  'pricingType',
  'tieredPricing',
  'conditionalRules',
  'variants',
  'category',
  'isActive',
  'createdAt',
  'updatedAt',
] as const;
const CATALOG_FIELDS = [
  '_id',
  'name',
  'description',
  'category',
  'productId',
  'sku',
  'unitPrice',
  'unit',
  'vatRate',
  'imageUrl',
  'sortOrder',
  'isActive',
  'createdAt',
  'updatedAt',
] as const;
export const serializeProduct = (p: OfferProduct): ProductView => plainOf(p, PRODUCT_FIELDS);
export const serializeCatalogItem = (c: CatalogItem): CatalogView => plainOf(c, CATALOG_FIELDS);

function listWhere(query: CatalogListQuery): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  if (query.category) where.category = query.category;
  if (query.isActive !== undefined) where.isActive = query.isActive;
  if (query.q) where.$or = likeAny(query.q, ['name', 'sku', 'description']);
  return where;
}

export function getProduct(ctx: Ctx, id: string): Promise<OfferProduct> {
  return getRecord(ctx, OfferProduct, id, 'product');
}

export async function listProducts(ctx: Ctx, query: CatalogListQuery) {
  const { items, total } = await findPage(ctx.em, OfferProduct, listWhere(query), query, { createdAt: 'desc' });
  return { items: items.map(serializeProduct), total };
}

export async function createProduct(ctx: Ctx, input: ProductInput & { name: string }) {
  const p = createRecord(ctx, OfferProduct, {
    name: input.name,
    description: input.description ?? null,
    sku: input.sku ?? null,
    unitPrice: input.unitPrice ?? 0,
    unit: input.unit ?? null,
    vatRate: input.vatRate ?? null,
    pricingType: input.pricingType ?? 'fixed',
    tieredPricing: input.tieredPricing ?? [],
    conditionalRules: input.conditionalRules ?? [],
    variants: input.variants ?? [],
    category: input.category ?? null,
    isActive: input.isActive ?? true,
  });
  emit(ctx, { ...createdEvent('product', { product: serializeProduct(p) }), entityId: p._id });
  await ctx.em.persist(p).flush();
  return serializeProduct(p);
}

export async function updateProduct(ctx: Ctx, id: string, input: ProductInput) {
  const p = await getProduct(ctx, id);
  await updateWithEvent(
    ctx,
    p,
    { ...input } as Partial<OfferProduct>,
    updatedEvent('product', (changes) => ({ product: serializeProduct(p), changes })),
  );
  return serializeProduct(p);
}

export async function deleteProduct(ctx: Ctx, id: string): Promise<void> {
  const p = await getProduct(ctx, id);
  // Catalog entries selling it stay, unlinked.
  await ctx.em.nativeUpdate(CatalogItem, { productId: id }, { productId: null, updatedAt: new Date() });
  await deleteWithEvent(ctx, p, {
    type: 'product_deleted',
    entityType: 'product',
    payload: { product: serializeProduct(p) },
  });
}

async function assertProduct(ctx: Ctx, productId: string | null | undefined): Promise<void> {
  if (productId && !(await ctx.em.count(OfferProduct, { _id: productId }))) {
    throw validation(`productId: no product with id ${productId}`, [
      { path: 'productId', error: `no product with id ${productId}` },
    ]);
  }
}

export function getCatalogItem(ctx: Ctx, id: string): Promise<CatalogItem> {
  return getRecord(ctx, CatalogItem, id, 'catalog item');
}

export async function listCatalog(ctx: Ctx, query: CatalogListQuery) {
  const { items, total } = await findPage(ctx.em, CatalogItem, listWhere(query), query, { sortOrder: 'asc' });
  return { items: items.map(serializeCatalogItem), total };
}

export async function createCatalogItem(ctx: Ctx, input: CatalogInput & { name: string }) {
  await assertProduct(ctx, input.productId);
  const c = createRecord(ctx, CatalogItem, {
    name: input.name,
    description: input.description ?? null,
    category: input.category ?? null,
    productId: input.productId ?? null,
    sku: input.sku ?? null,
    unitPrice: input.unitPrice ?? 0,
    unit: input.unit ?? null,
    vatRate: input.vatRate ?? null,
    imageUrl: input.imageUrl ?? null,
    sortOrder: input.sortOrder ?? 0,
    isActive: input.isActive ?? true,
  });
  emit(ctx, { ...createdEvent('catalog_item', { catalogItem: serializeCatalogItem(c) }), entityId: c._id });
  await ctx.em.persist(c).flush();
  return serializeCatalogItem(c);
}

export async function updateCatalogItem(ctx: Ctx, id: string, input: CatalogInput) {
  const c = await getCatalogItem(ctx, id);
  await assertProduct(ctx, input.productId);
  await updateWithEvent(
    ctx,
    c,
    { ...input } as Partial<CatalogItem>,
    updatedEvent('catalog_item', (changes) => ({ catalogItem: serializeCatalogItem(c), changes })),
  );
  return serializeCatalogItem(c);
}

export const deleteCatalogItem = deleteById(getCatalogItem, 'catalog_item', (c) => ({
  catalogItem: serializeCatalogItem(c),
}));
