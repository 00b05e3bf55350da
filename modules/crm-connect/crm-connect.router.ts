import type { RouteFactory } from '../../platform/http/app-deps';
import { lookup } from './lookup.service';
import { logConnectorCall } from './connector-calls.service';
import { created, ok, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { lookupResultView } from './crm-connect.views';
import { callView } from '../calls';
import { connectorCallBody, lookupQuery } from './crm-connect.schemas';

const section = 'CRM connect';

export const crmConnectRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/crm-connect/lookup',
    section,
    access: { scopes: ['read'] },
    query: lookupQuery,
    summary:
      'Find people, companies and leads by phone (normalised: spaces, dashes, dots, parentheses ignored, 00 = +, last 8 digits compared when a country prefix may be missing) or by e-mail (case-insensitive).',
    response: envelopes.data(lookupResultView),
    handler: async ({ ctx, query }) => ok(await lookup(ctx, query)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/crm-connect/calls',
    section,
    access: { scopes: ['write'] },
    body: connectorCallBody,
    successStatus: 201,
    summary:
      'Log a call from a telephony connector, linked to the first record matching the phone (person, else company, else lead); idempotent on externalId (200 for a repeat).',
    response: envelopes.data(callView),
    responses: {
      200: { json: envelopes.data(callView), description: 'a repeat of an externalId: the stored call' },
    },
    handler: async ({ ctx, body }) => {
      const result = await logConnectorCall(ctx, body);
      return result.created ? created(result.call) : ok(result.call);
    },
  }),
];
