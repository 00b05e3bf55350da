import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as calculators from './calculators.service';
import { calculateBody } from './offer-types.schemas';
import {
  calculationView,
  calculatorSubmissionView,
  calculatorTemplateSummaryView,
  calculatorTemplateView,
} from './pricing.views';
import { pageParams } from '../../platform/shared/list-query';
import { envelopes } from '../../platform/http/crud';
import { ok, pageOf, route } from '../../platform/http/registry';
import { idParams, objectId } from '../../platform/shared/schemas';
import { read } from '../../platform/http/access';

const section = 'Calculators';
const resources = { id: 'calculator-template' };
const listQuery = z.object(pageParams(100));
const submissionsQuery = z.object({
  ...pageParams(100),
  templateId: objectId.optional(),
  offerId: objectId.optional(),
});

export const calculatorsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/calculator-templates',
    section,
    access: read,
    query: listQuery,
    response: envelopes.list(calculatorTemplateSummaryView),
    summary:
      'Calculator templates: every active offer type (same _id) with its inputFields, currency, vatRate, vatDisplayMode and ruleCount. Create and edit them through /offer-types.',
    handler: async ({ ctx, query }) => pageOf(await calculators.listTemplates(ctx, query), query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/calculator-templates/:id',
    section,
    access: read,
    params: idParams,
    resources,
    response: envelopes.data(calculatorTemplateView),
    summary: 'One calculator template with its pricing rules (an inactive offer type is 404 here).',
    handler: async ({ ctx, params }) => ok(await calculators.getTemplate(ctx, params.id)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/calculator-templates/:id/calculate',
    section,
    access: read,
    params: idParams,
    body: calculateBody,
    resources,
    response: envelopes.data(calculationView),
    summary:
      "Run the template's rules on `inputs` (required object; missing required inputs and wrong types are 400 with details), optional lines, customer, offer, products. Stateless; `save: true` (needs the write scope) also stores a calculator submission (optional offerId) and returns its submissionId.",
    handler: async ({ ctx, params, body }) => ok(await calculators.calculate(ctx, params.id, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/calculator-submissions',
    section,
    access: read,
    query: submissionsQuery,
    response: envelopes.list(calculatorSubmissionView),
    summary: 'Saved calculations, newest first; filters templateId and offerId.',
    handler: async ({ ctx, query }) => pageOf(await calculators.listSubmissions(ctx, query), query),
  }),
];
