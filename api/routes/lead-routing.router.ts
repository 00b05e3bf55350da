import type { RouteFactory } from '../app';
import * as routing from '../../domain/leads/lead-routing.service';
import { crudRoutes } from '../http/crud';
import { createRoutingRuleBody, routingRuleView, updateRoutingRuleBody } from './lead-routing.schemas';

export const leadRoutingRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/lead-routing/rules', section: 'Lead routing', kind: 'lead-routing-rule', unpaged: true,
    access: { read: { scopes: ['read'] }, write: { scopes: ['write'], roles: ['owner', 'admin'] } },
    schemas: { create: createRoutingRuleBody, update: updateRoutingRuleBody, view: routingRuleView },
    service: {
      list: (ctx) => routing.listRoutingRules(ctx),
      create: (ctx, body) => routing.createRoutingRule(ctx, body),
      get: async (ctx, id) => routing.serializeRoutingRule(await routing.getRoutingRule(ctx, id)),
      update: (ctx, id, body) => routing.updateRoutingRule(ctx, id, body),
      remove: routing.deleteRoutingRule,
    },
    summaries: {
      list: 'Lead routing rules in evaluation order (sortOrder, then creation).',
      create: 'Create a routing rule (owner/admin): on lead creation without ownerId, the first active matching rule assigns the owner.',
      get: 'One lead routing rule.',
      update: 'Update a routing rule (partial; owner/admin).',
      remove: 'Delete a routing rule (owner/admin).',
    },
  });
