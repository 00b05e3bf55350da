import type { RouteFactory } from '../app';
import * as scoring from '../../domain/leads/lead-scoring.service';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams, pageQuery } from '../../domain/shared/schemas';
import { createScoringRuleBody, updateScoringRuleBody } from '../../domain/leads/lead-scoring.schemas';

const read = { scopes: ['read'] } as const;
const admin = { scopes: ['write'], roles: ['owner', 'admin'] } as const;
const section = 'Lead scoring';
const resources = { id: 'lead-scoring-rule' };

export const leadScoringRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/lead-scoring/rules',
    section,
    access: read,
    query: pageQuery(scoring.MAX_SCORING_RULES),
    summary: `Lead scoring rules, sorted by sortOrder (then creation); paged (limit up to ${scoring.MAX_SCORING_RULES}, the most a workspace can hold).`,
    handler: async ({ ctx, query }) => {
      const { items, total } = await scoring.listScoringRules(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/lead-scoring/rules/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'One lead scoring rule.',
    handler: async ({ ctx, params }) => ok(scoring.serializeScoringRule(await scoring.getScoringRule(ctx, params.id))),
  }),
  route({
    method: 'POST',
    path: '/api/v1/lead-scoring/rules',
    section,
    access: admin,
    body: createScoringRuleBody,
    successStatus: 201,
    summary: 'Create a scoring rule (owner/admin); all leads are rescored in the background.',
    handler: async ({ ctx, body }) => created(await scoring.createScoringRule(ctx, body)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/lead-scoring/rules/:id',
    section,
    access: admin,
    params: idParams,
    body: updateScoringRuleBody,
    resources,
    summary: 'Update a scoring rule (partial; owner/admin); all leads are rescored in the background.',
    handler: async ({ ctx, params, body }) => ok(await scoring.updateScoringRule(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/lead-scoring/rules/:id',
    section,
    access: admin,
    params: idParams,
    resources,
    summary: 'Delete a scoring rule (owner/admin); all leads are rescored in the background.',
    handler: async ({ ctx, params }) => {
      await scoring.deleteScoringRule(ctx, params.id);
      return acknowledged();
    },
  }),
];
