import type { RouteFactory } from '../app';
import * as routing from '../../domain/leads/lead-routing.service';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams, pageQuery } from '../../domain/shared/schemas';
import { createRoutingRuleBody, updateRoutingRuleBody } from '../../domain/leads/lead-routing.schemas';

const read = { scopes: ['read'] } as const;
const admin = { scopes: ['write'], roles: ['owner', 'admin'] } as const;
const section = 'Lead routing';
const resources = { id: 'lead-routing-rule' };

export const leadRoutingRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/lead-routing/rules',
    section,
    access: read,
    query: pageQuery(routing.MAX_ROUTING_RULES),
    summary: `Lead routing rules in evaluation order (sortOrder, then creation); paged (limit up to ${routing.MAX_ROUTING_RULES}, the most a workspace can hold).`,
    handler: async ({ ctx, query }) => {
      const { items, total } = await routing.listRoutingRules(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/lead-routing/rules/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'One lead routing rule.',
    handler: async ({ ctx, params }) => ok(routing.serializeRoutingRule(await routing.getRoutingRule(ctx, params.id))),
  }),
  route({
    method: 'POST',
    path: '/api/v1/lead-routing/rules',
    section,
    access: admin,
    body: createRoutingRuleBody,
    successStatus: 201,
    summary:
      'Create a routing rule (owner/admin): on lead creation without ownerId, the first active matching rule assigns the owner.',
    handler: async ({ ctx, body }) => created(await routing.createRoutingRule(ctx, body)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/lead-routing/rules/:id',
    section,
    access: admin,
    params: idParams,
    body: updateRoutingRuleBody,
    resources,
    summary: 'Update a routing rule (partial; owner/admin).',
    handler: async ({ ctx, params, body }) => ok(await routing.updateRoutingRule(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/lead-routing/rules/:id',
    section,
    access: admin,
    params: idParams,
    resources,
    summary: 'Delete a routing rule (owner/admin).',
    handler: async ({ ctx, params }) => {
      await routing.deleteRoutingRule(ctx, params.id);
      return acknowledged();
    },
  }),
];
