import type { RouteFactory } from '../../platform/http/app-deps';
import * as calls from './calls.service';
import { serializeCall } from './call-view';
import { listCalls } from './calls.query';
import { callView, createCallBody, listCallsQuery, updateCallBody } from './calls.schemas';
import { crudRoutes, envelopes, Existing, viewOf } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

export const callsRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/calls',
    section: 'Calls',
    kind: 'call',
    access: { read, write },
    schemas: { list: listCallsQuery, create: createCallBody, update: updateCallBody, view: callView },
    service: {
      list: listCalls,
      create: async (ctx, body) => {
        const result = await calls.createCall(ctx, body);
        return result.created ? result.call : new Existing(result.call);
      },
      get: viewOf(calls.getCall, serializeCall),
      update: calls.updateCall,
      remove: calls.deleteCall,
    },
    routes: {
      create: {
        responses: {
          200: { json: envelopes.data(callView), description: 'the call already logged with this externalId' },
        },
      },
    },
    summaries: {
      list: 'List calls, latest startedAt first (dateFrom/dateTo bound startedAt). Each row carries at most 50 conversation turns (conversationTruncated says when more are stored).',
      create: 'Log a call; also creates its call activity. A repeated externalId answers the stored call with 200.',
      get: 'Get one call with its full conversation. Recording links are never given to API keys (hasRecording says whether one exists).',
      update: 'Update a call (partial); its activity follows.',
      remove: 'Delete a call and its activity.',
    },
  });
