import type { RouteFactory } from '../app';
import * as templates from '../../domain/offers/offer-templates.service';
import * as products from '../../domain/offers/products.service';
import { crudRoutes, envelopes } from '../http/crud';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import {
  catalogView,
  createCatalogBody,
  createOfferTemplateBody,
  createProductBody,
  listProductsQuery,
  listTemplatesQuery,
  productView,
  updateCatalogBody,
  updateOfferTemplateBody,
  updateProductBody,
} from '../../domain/offers/offers.schemas';
import { offerTemplateSummaryView, offerTemplateView } from '../../domain/offers/offers.views';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const admin = { scopes: ['write'], roles: ['owner', 'admin'] } as const;
const section = 'Offers';
const resources = { id: 'offer-template' };

export const offerCatalogRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/offer-templates',
    section,
    access: read,
    query: listTemplatesQuery,
    response: envelopes.list(offerTemplateSummaryView),
    summary:
      'Offer templates as summaries (no pages or elements; pageCount instead), newest first; inactive ones only with includeInactive=true.',
    handler: async ({ ctx, query }) => {
      const { items, total } = await templates.listOfferTemplates(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/offer-templates',
    section,
    access: admin,
    body: createOfferTemplateBody,
    successStatus: 201,
    response: envelopes.data(offerTemplateView),
    summary:
      'Create an offer template (owner/admin): name required; pages (≤ 100), headerElements, footerElements, branding, defaultTerms, defaultPaymentTerms, defaultValidity (days), isDefault (one per workspace), isActive; at most 1 MB.',
    handler: async ({ ctx, body }) => created(await templates.createOfferTemplate(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/offer-templates/:id',
    section,
    access: read,
    params: idParams,
    resources,
    response: envelopes.data(offerTemplateView),
    summary: 'One offer template with its pages and elements.',
    handler: async ({ ctx, params }) =>
      ok(templates.serializeOfferTemplate(await templates.getOfferTemplate(ctx, params.id))),
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/offer-templates/:id',
    section,
    access: admin,
    params: idParams,
    body: updateOfferTemplateBody,
    resources,
    response: envelopes.data(offerTemplateView),
    summary: 'Update an offer template (owner/admin; given fields replace, arrays whole).',
    handler: async ({ ctx, params, body }) => ok(await templates.updateOfferTemplate(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/offer-templates/:id',
    section,
    access: admin,
    params: idParams,
    resources,
    response: envelopes.ok,
    summary: 'Delete an offer template (owner/admin); offers keep their sent snapshots.',
    handler: async ({ ctx, params }) => {
      await templates.deleteOfferTemplate(ctx, params.id);
      return acknowledged();
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/offer-templates/:id/duplicate',
    section,
    access: admin,
    params: idParams,
    resources,
    successStatus: 201,
    response: envelopes.data(offerTemplateView),
    summary: 'Copy a template as "<name> (copy)" (never the default); answers the copy.',
    handler: async ({ ctx, params }) => created(await templates.duplicateOfferTemplate(ctx, params.id)),
  }),
  ...crudRoutes({
    base: '/api/v1/products',
    section,
    kind: 'product',
    access: { read, write },
    schemas: { list: listProductsQuery, create: createProductBody, update: updateProductBody, view: productView },
    service: {
      list: products.listProducts,
      create: (ctx, body) => products.createProduct(ctx, body),
      get: async (ctx, id) => products.serializeProduct(await products.getProduct(ctx, id)),
      update: (ctx, id, body) => products.updateProduct(ctx, id, body),
      remove: products.deleteProduct,
    },
    summaries: {
      list: 'Products, newest first; filters q (name, sku, description), category, isActive.',
      create:
        'Create a product: name required; unitPrice (major units, ≤ 6 decimals), unit, vatRate, pricingType fixed|advanced, tieredPricing [{ minQuantity, maxQuantity?, unitPrice }], conditionalRules, variants [{ name, unitPrice?, sku? }], category, isActive.',
      get: 'One product.',
      update: 'Update a product (partial; arrays replace).',
      remove: 'Delete a product; catalog items that sold it stay, unlinked.',
    },
  }),
  ...crudRoutes({
    base: '/api/v1/catalog',
    section,
    kind: 'catalog-item',
    access: { read, write },
    schemas: { list: listProductsQuery, create: createCatalogBody, update: updateCatalogBody, view: catalogView },
    service: {
      list: products.listCatalog,
      create: (ctx, body) => products.createCatalogItem(ctx, body),
      get: async (ctx, id) => products.serializeCatalogItem(await products.getCatalogItem(ctx, id)),
      update: (ctx, id, body) => products.updateCatalogItem(ctx, id, body),
      remove: products.deleteCatalogItem,
    },
    summaries: {
      list: 'Catalog (price list) entries by sortOrder; filters q, category, isActive.',
      create:
        'Create a catalog item: name required; description, category, productId (an existing product), sku, unitPrice, unit, vatRate, imageUrl (https), sortOrder, isActive.',
      get: 'One catalog item.',
      update: 'Update a catalog item (partial).',
      remove: 'Delete a catalog item.',
    },
  }),
];
