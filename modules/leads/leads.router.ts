import type { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as leads from './leads.service';
import { LEAD_SUMMARY_FIELDS } from './leads.schemas';
import { projectedList, projectedRead } from '../../platform/shared/list-query';
import { timelineRoutes } from '../timeline';
import { createLeadBody, getLeadQuery, leadReadView, leadView, listLeadsQuery, updateLeadBody } from './leads.schemas';
import { crudRoutes, envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'Leads';
const parent = { base: '/api/v1/leads', section, kind: 'lead', load: leads.getLead };

export const leadsRoutes: RouteFactory = () => [
  ...crudRoutes({
    base: '/api/v1/leads',
    section,
    kind: 'lead',
    access: { read, write },
    schemas: { list: listLeadsQuery, create: createLeadBody, update: updateLeadBody, view: leadView },
    service: {
      list: projectedList(
        (ctx, query: z.infer<typeof listLeadsQuery>) =>
          leads.listLeads(ctx, { ...query, search: query.search || query.q }),
        LEAD_SUMMARY_FIELDS,
      ),
      create: (ctx, body, { preview }) => leads.createLead(ctx, body, { preview }),
      get: projectedRead(leads.readLead),
      update: (ctx, id, body, { preview }) => leads.updateLead(ctx, id, body, { preview }),
      remove: async (ctx, id) => {
        await leads.deleteLead(ctx, id);
      },
    },
    summaries: {
      list: 'List leads (newest first; oldest change first with updatedSince); filters status, source, ownerId, search (alias q).',
      create:
        'Create a lead; the score is computed from the scoring rules and, without ownerId, routing rules pick the owner.',
      get: 'Get one lead, including score and scoreBreakdown.',
      update: 'Update a lead (partial; customFields merges, null removes a key); the score is recalculated.',
      remove: 'Delete a lead; deals that referenced it stay, unlinked.',
    },
    previewable: true,
    routes: {
      list: { response: envelopes.list(leadReadView) },
      get: { query: getLeadQuery, response: envelopes.data(leadReadView) },
    },
  }),
  ...timelineRoutes(parent, 'leadId', 'lead'),
];
