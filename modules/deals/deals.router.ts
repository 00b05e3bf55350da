import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as deals from './deals.service';
import { DEAL_SUMMARY_FIELDS } from './deals.schemas';
import { listDeals } from './deals-list';
import { dealStatusTransitions } from './deals.rules';
import { projectedList, projectedRead } from '../../platform/shared/list-query';
import { ok, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { timelineRoutes } from '../timeline';
import {
  createDealBody,
  dealReadView,
  dealView,
  getDealQuery,
  listDealsQuery,
  moveDealBody,
  updateDealBody,
} from './deals.schemas';
import { crudRoutes, envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'Deals';
const resources = { id: 'deal' };
const parent = { base: '/api/v1/deals', section, kind: 'deal', load: deals.getDeal };

export const dealsRoutes: RouteFactory = () => [
  ...crudRoutes({
    base: '/api/v1/deals',
    section,
    kind: 'deal',
    access: { read, write },
    schemas: { list: listDealsQuery, create: createDealBody, update: updateDealBody, view: dealView },
    service: {
      list: projectedList(listDeals, DEAL_SUMMARY_FIELDS, (query) => ({ view: query.view })),
      create: (ctx, body, { preview }) => deals.createDeal(ctx, body, { preview }),
      get: projectedRead(deals.readDeal),
      update: (ctx, id, body, { preview }) => deals.updateDeal(ctx, id, body, { preview }),
      remove: async (ctx, id) => {
        await deals.deleteDeal(ctx, id);
      },
    },
    summaries: {
      list: 'List deals (newest first unless sortBy; oldest change first with updatedSince). Unknown query parameters answer 400.',
      create: 'Create a deal (without flowId/stageId it enters the first open stage of the default flow).',
      get: 'Get one deal.',
      update:
        'Update a deal (partial; customFields merges by key). Field, status and stage changes are logged to the activity feed.',
      remove: 'Delete a deal.',
    },
    previewable: true,
    routes: {
      list: {
        response: envelopes
          .list(dealReadView)
          .extend({ view: z.enum(['summary', 'full']).describe('the view asked for') }),
      },
      get: { query: getDealQuery, response: envelopes.data(dealReadView) },
      update: { transitions: [dealStatusTransitions] },
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
