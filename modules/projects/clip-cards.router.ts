import type { RouteFactory } from '../../platform/http/app-deps';
import * as cards from './clip-cards.service';
import { acknowledged, created, ok, paged, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { idParams } from '../../platform/shared/schemas';
import { clipCardView, createClipCardBody, listClipCardsQuery, updateClipCardBody } from './clip-cards.schemas';
import { read, write } from '../../platform/http/access';

const section = 'Clip cards';
const resources = { id: 'clip-card' };

// Hand-written, not crudRoutes: a clip card needs a project of the tenant, which the CRUD contract suite's static
// fixtures cannot name.
export const clipCardsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/clip-cards',
    section,
    access: read,
    query: listClipCardsQuery,
    summary: 'List clip cards (newest first); filters status (active, depleted, expired, cancelled) and projectId.',
    response: envelopes.list(clipCardView),
    handler: async ({ ctx, query }) => {
      const { items, total } = await cards.listClipCards(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/clip-cards',
    section,
    access: write,
    body: createClipCardBody,
    successStatus: 201,
    summary: 'Create a clip card (prepaid hours) for a project.',
    response: envelopes.data(clipCardView),
    handler: async ({ ctx, body }) => created(await cards.createClipCard(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/clip-cards/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'Get one clip card with usedHours, remainingHours and status.',
    response: envelopes.data(clipCardView),
    handler: async ({ ctx, params }) => ok(cards.serializeClipCard(await cards.getClipCard(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/clip-cards/:id',
    section,
    access: write,
    params: idParams,
    body: updateClipCardBody,
    resources,
    summary: 'Update a clip card (partial); status cancelled cancels it, status active lifts a cancellation.',
    response: envelopes.data(clipCardView),
    handler: async ({ ctx, params, body }) => ok(await cards.updateClipCard(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/clip-cards/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a clip card (its time entries stay).',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await cards.deleteClipCard(ctx, params.id);
      return acknowledged();
    },
  }),
];
