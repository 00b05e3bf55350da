import { z } from 'zod';
import type { RouteFactory } from '../app';
import * as leads from '../../domain/leads/leads.service';
import { serializeLead } from '../../domain/leads/leads.service';
import { LEAD_SUMMARY_FIELDS } from '../../domain/leads/leads.schemas';
import { project } from '../../domain/shared/list-query';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import { timelineRoutes } from './sub-lists';
import {
  createLeadBody,
  getLeadQuery,
  leadReadView,
  leadView,
  listLeadsQuery,
  updateLeadBody,
} from '../../domain/leads/leads.schemas';
import { envelopes } from '../http/crud';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Leads';
const resources = { id: 'lead' };
const parent = { base: '/api/v1/leads', section, kind: 'lead', load: leads.getLead };

export const leadsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/leads',
    section,
    access: read,
    query: listLeadsQuery,
    summary:
      'List leads (newest first; oldest change first with updatedSince); filters status, source, ownerId, search (alias q).',
    response: envelopes.list(leadReadView),
    handler: async ({ ctx, query }) => {
      const { items, total } = await leads.listLeads(ctx, { ...query, search: query.search || query.q });
      return paged(
        items.map((l) => project(l, { ...query, summary: LEAD_SUMMARY_FIELDS })),
        { page: query.page, limit: query.limit, total },
      );
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/leads',
    section,
    access: write,
    body: createLeadBody,
    previewable: true,
    successStatus: 201,
    summary:
      'Create a lead; the score is computed from the scoring rules and, without ownerId, routing rules pick the owner.',
    response: envelopes.data(leadView),
    responses: { 200: envelopes.preview(leadView) },
    handler: async ({ ctx, body, preview }) => {
      const result = await leads.createLead(ctx, body, { preview });
      return preview ? ok(result) : created(result);
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/leads/:id',
    section,
    access: read,
    params: idParams,
    query: getLeadQuery,
    resources,
    summary: 'Get one lead, including score and scoreBreakdown.',
    response: envelopes.data(leadReadView),
    handler: async ({ ctx, params, query }) => ok(project(serializeLead(await leads.getLead(ctx, params.id)), query)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/leads/:id',
    section,
    access: write,
    params: idParams,
    body: updateLeadBody,
    previewable: true,
    resources,
    summary: 'Update a lead (partial; customFields merges, null removes a key); the score is recalculated.',
    response: z.union([envelopes.data(leadView), envelopes.preview(leadView)]),
    handler: async ({ ctx, params, body, preview }) => ok(await leads.updateLead(ctx, params.id, body, { preview })),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/leads/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a lead; deals that referenced it stay, unlinked.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await leads.deleteLead(ctx, params.id);
      return acknowledged();
    },
  }),
  ...timelineRoutes(parent, 'leadId', 'lead'),
];
