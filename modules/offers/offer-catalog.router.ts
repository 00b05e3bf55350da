import type { RouteFactory } from '../../platform/http/app-deps';
import * as templates from './offer-templates.service';
import * as products from './products.service';
import { crudRoutes, envelopes, viewOf } from '../../platform/http/crud';
import { created, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
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
} from './offer-catalog.schemas';
import { offerTemplateSummaryView, offerTemplateView } from './offers.views';
import { admin, read, write } from '../../platform/http/access';

const section = 'Offers';
const resources = { id: 'offer-template' };

export const offerCatalogRoutes: RouteFactory = () => [
  ...crudRoutes({
    base: '/api/v1/offer-templates',
    section,
    kind: 'offer-template',
    access: { read, write: admin },
    schemas: {
      list: listTemplatesQuery,
      create: createOfferTemplateBody,
      update: updateOfferTemplateBody,
      view: offerTemplateView,
    },
    service: {
      list: templates.listOfferTemplates,
      create: templates.createOfferTemplate,
      get: viewOf(templates.getOfferTemplate, templates.serializeOfferTemplate),
      update: templates.updateOfferTemplate,
      remove: templates.deleteOfferTemplate,
    },
    updateMethod: 'PATCH',
    routes: { list: { response: envelopes.list(offerTemplateSummaryView) } },
    summaries: {
      list: 'Offer templates as summaries (no pages or elements; pageCount instead), newest first; inactive ones only with includeInactive=true.',
      create:
        'Create an offer template (owner/admin): name required; pages (≤ 100), headerElements, footerElements, branding, defaultTerms, defaultPaymentTerms, defaultValidity (days), isDefault (one per workspace), isActive; at most 1 MB.',
      get: 'One offer template with its pages and elements.',
      update: 'Update an offer template (owner/admin; given fields replace, arrays whole).',
      remove: 'Delete an offer template (owner/admin); offers keep their sent snapshots.',
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
      create: products.createProduct,
      get: viewOf(products.getProduct, products.serializeProduct),
      update: products.updateProduct,
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
      create: products.createCatalogItem,
      get: viewOf(products.getCatalogItem, products.serializeCatalogItem),
      update: products.updateCatalogItem,
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
