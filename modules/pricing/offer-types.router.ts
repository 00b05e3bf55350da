import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as offerTypes from './offer-types.service';
import { createOfferTypeBody, patchOfferTypeBody, simulateBody, validateOfferTypeBody } from './offer-types.schemas';
import {
  offerTypeValidationView,
  offerTypeView,
  ruleReferenceView,
  ruleTemplatesView,
  simulationView,
  type RuleTemplatesView,
} from './pricing.views';
import { ruleReference } from './rule-reference';
import { INDUSTRIES, ruleTemplates } from './rule-templates';
import { boolParam, pageParams } from '../../platform/shared/list-query';
import { envelopes } from '../../platform/http/crud';
import { acknowledged, created, ok, pageOf, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { admin, read } from '../../platform/http/access';

const section = 'Offer types (pricing rules)';
const resources = { id: 'offer-type' };
const listQuery = z.object({ ...pageParams(100), includeInactive: boolParam.optional() });
const templatesQuery = z.object({
  industry: z
    .string()
    .transform((s) => s.normalize('NFC'))
    .pipe(z.enum(INDUSTRIES, { message: `must be one of ${INDUSTRIES.join(', ')}` }))
    .optional(),
});
const getQuery = z.object({ describe: boolParam.optional() });
const BODY =
  'name (req), slug (generated from the name, unique; may be given), description, isDefault (one per workspace), isActive, defaultTemplateId, requiredInputFields, pricingRules { rules, vatRate, currency, vatDisplayMode, products }, offerSettings, customPlaceholders';

// The fixed paths come before /:id (the router tries routes in this order).
export const offerTypesRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/offer-types',
    section,
    access: read,
    query: listQuery,
    response: envelopes.list(offerTypeView),
    summary: 'Offer types, newest first; only active ones unless includeInactive=true. limit max 100 (above: 400).',
    handler: async ({ ctx, query }) => pageOf(await offerTypes.listOfferTypes(ctx, query), query),
  }),
  route({
    method: 'POST',
    path: '/api/v1/offer-types',
    section,
    access: admin,
    body: createOfferTypeBody,
    successStatus: 201,
    response: envelopes.data(offerTypeView),
    summary: `Create an offer type (admin/owner): ${BODY}. Rule id, order and phase are filled when omitted; any problem answers 400 with details[{ path, error }]. The answer includes ruleSummaries.`,
    handler: async ({ ctx, body }) => created(await offerTypes.createOfferType(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/offer-types/rule-reference',
    section,
    access: read,
    response: envelopes.data(ruleReferenceView),
    summary:
      'The pricing-rule vocabulary: rule shape, phases, subjects, operators (with aliases), action types, targets, field types, expression operators and functions, products (tiers, conditional prices), VAT display modes.',
    handler: async () => ok(ruleReference()),
  }),
  route({
    method: 'GET',
    path: '/api/v1/offer-types/rule-templates',
    section,
    access: read,
    query: templatesQuery,
    response: envelopes.data(ruleTemplatesView),
    summary:
      'Starter rules per industry (`IT`, `Håndværk`, `Generelt`; none = all): { industries, templates: [{ key, industry, name, description, requiredInputFields, rule }] }.',
    handler: async ({ query }) => {
      const view: RuleTemplatesView = { industries: [...INDUSTRIES], templates: ruleTemplates(query.industry) };
      return ok(view);
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/offer-types/validate',
    section,
    access: read,
    body: validateOfferTypeBody,
    response: envelopes.data(offerTypeValidationView),
    summary:
      'Check requiredInputFields and pricingRules without saving: { valid, errors[], warnings[] (each { path, error }), ruleSummaries, normalizedRules }. Malformed shapes are a 400 like on create.',
    handler: async ({ body }) => ok(offerTypes.validateDraft(body)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/offer-types/simulate',
    section,
    access: read,
    body: simulateBody,
    response: envelopes.data(simulationView),
    summary:
      'Run the rules without saving: offerTypeId or offerType (draft), fields, lines, customer { industry, country, postalCode, isExisting }, offer { manualDiscountPercent }, products → lines, adjustments, subtotal, vatAmount, total, vatBreakdown, computedFields, warnings, blocks, trace.',
    handler: async ({ ctx, body }) => ok(await offerTypes.simulate(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/offer-types/:id',
    section,
    access: read,
    params: idParams,
    query: getQuery,
    resources,
    response: envelopes.data(offerTypeView),
    summary: 'One offer type; describe=true adds ruleSummaries.',
    handler: async ({ ctx, params, query }) =>
      ok(offerTypes.serializeOfferType(await offerTypes.getOfferType(ctx, params.id), { describe: query.describe })),
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/offer-types/:id',
    section,
    access: admin,
    params: idParams,
    body: patchOfferTypeBody,
    resources,
    response: envelopes.data(offerTypeView),
    summary:
      'Change the given fields (admin/owner). pricingRules merges vatRate, currency and vatDisplayMode; pricingRules.rules, pricingRules.products and requiredInputFields replace whole arrays and are validated like on create.',
    handler: async ({ ctx, params, body }) => ok(await offerTypes.patchOfferType(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/offer-types/:id',
    section,
    access: admin,
    params: idParams,
    resources,
    response: envelopes.ok,
    summary: 'Delete an offer type (admin/owner); its calculator submissions stay.',
    handler: async ({ ctx, params }) => {
      await offerTypes.deleteOfferType(ctx, params.id);
      return acknowledged();
    },
  }),
];
