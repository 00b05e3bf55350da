import type { RouteFactory } from '../../platform/http/app-deps';
import * as calls from './calls.service';
import { serializeCall } from './call-view';
import { listCalls } from './calls.query';
import { acknowledged, created, ok, paged, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { callView, createCallBody, listCallsQuery, updateCallBody } from './calls.schemas';
import { envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'Calls';
const resources = { id: 'call' };

export const callsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/calls',
    section,
    access: read,
    query: listCallsQuery,
    summary:
      'List calls, latest startedAt first (dateFrom/dateTo bound startedAt). Each row carries at most 50 conversation turns (conversationTruncated says when more are stored).',
    response: envelopes.list(callView),
    handler: async ({ ctx, query }) => {
      const { items, total } = await listCalls(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/calls',
    section,
    access: write,
    body: createCallBody,
    successStatus: 201,
    summary: 'Log a call; also creates its call activity. A repeated externalId answers the stored call with 200.',
    response: envelopes.data(callView),
    responses: { 200: { json: envelopes.data(callView), description: 'the call already logged with this externalId' } },
    handler: async ({ ctx, body }) => {
      const result = await calls.createCall(ctx, body);
      return result.created ? created(result.call) : ok(result.call);
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/calls/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary:
      'Get one call with its full conversation. Recording links are never given to API keys (hasRecording says whether one exists).',
    response: envelopes.data(callView),
    handler: async ({ ctx, params }) => ok(serializeCall(await calls.getCall(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/calls/:id',
    section,
    access: write,
    params: idParams,
    body: updateCallBody,
    resources,
    summary: 'Update a call (partial); its activity follows.',
    response: envelopes.data(callView),
    handler: async ({ ctx, params, body }) => ok(await calls.updateCall(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/calls/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a call and its activity.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await calls.deleteCall(ctx, params.id);
      return acknowledged();
    },
  }),
];
