import { z } from 'zod';
import type { RouteFactory } from '../app';
import * as deals from '../../domain/deals/deals.service';
import { serializeDeal } from '../../domain/deals/deals.service';
import { DEAL_SUMMARY_FIELDS } from '../../domain/deals/deals.schemas';
import { listDeals } from '../../domain/deals/deals-list';
import { dealStatusTransitions } from '../../domain/deals/deals.rules';
import { project } from '../../domain/shared/list-query';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import { timelineRoutes } from './sub-lists';
import {
  createDealBody,
  dealReadView,
  dealView,
  getDealQuery,
  listDealsQuery,
  moveDealBody,
  updateDealBody,
} from '../../domain/deals/deals.schemas';
import { envelopes } from '../http/crud';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Deals';
const resources = { id: 'deal' };
const parent = { base: '/api/v1/deals', section, kind: 'deal', load: deals.getDeal };

export const dealsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/deals',
    section,
    access: read,
    query: listDealsQuery,
    summary:
      'List deals (newest first unless sortBy; oldest change first with updatedSince). Unknown query parameters answer 400.',
    response: envelopes.list(dealReadView).extend({ view: z.enum(['summary', 'full']).describe('the view asked for') }),
    handler: async ({ ctx, query }) => {
      const { items, total } = await listDeals(ctx, query);
      return paged(
        items.map((d) => project(d, { ...query, summary: DEAL_SUMMARY_FIELDS })),
        { page: query.page, limit: query.limit, total, view: query.view },
      );
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/deals',
    section,
    access: write,
    body: createDealBody,
    previewable: true,
    successStatus: 201,
    summary: 'Create a deal (without flowId/stageId it enters the first open stage of the default flow).',
    response: envelopes.data(dealView),
    responses: { 200: envelopes.preview(dealView) },
    handler: async ({ ctx, body, preview }) => {
      const result = await deals.createDeal(ctx, body, { preview });
      return preview ? ok(result) : created(result);
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/deals/:id',
    section,
    access: read,
    params: idParams,
    query: getDealQuery,
    resources,
    summary: 'Get one deal.',
    response: envelopes.data(dealReadView),
    handler: async ({ ctx, params, query }) => ok(project(serializeDeal(await deals.getDeal(ctx, params.id)), query)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/deals/:id',
    section,
    access: write,
    params: idParams,
    body: updateDealBody,
    previewable: true,
    resources,
    transitions: [dealStatusTransitions],
    summary:
      'Update a deal (partial; customFields merges by key). Field, status and stage changes are logged to the activity feed.',
    response: z.union([envelopes.data(dealView), envelopes.preview(dealView)]),
    handler: async ({ ctx, params, body, preview }) => ok(await deals.updateDeal(ctx, params.id, body, { preview })),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/deals/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a deal.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await deals.deleteDeal(ctx, params.id);
      return acknowledged();
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/deals/:id/move',
    section,
    access: write,
    params: idParams,
    body: moveDealBody,
    resources,
    transitions: [dealStatusTransitions],
    summary:
      'Move a deal to a stage (of its flow, or of flowId). Entering a won/lost stage closes the deal; an open stage reopens it.',
    response: envelopes.data(dealView),
    handler: async ({ ctx, params, body }) => ok(await deals.moveDeal(ctx, params.id, body)),
  }),
  ...timelineRoutes(parent, 'dealId', 'deal'),
];
