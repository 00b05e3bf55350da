import type { RouteFactory } from '../../platform/http/app-deps';
import * as routing from './lead-routing.service';
import { crudRoutes, viewOf } from '../../platform/http/crud';
import { pageQuery } from '../../platform/shared/schemas';
import { createRoutingRuleBody, routingRuleView, updateRoutingRuleBody } from './lead-routing.schemas';

export const leadRoutingRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/lead-routing/rules',
    section: 'Lead routing',
    kind: 'lead-routing-rule',
    access: { read: { scopes: ['read'] }, write: { scopes: ['write'], roles: ['owner', 'admin'] } },
    schemas: {
      list: pageQuery(routing.MAX_ROUTING_RULES),
      create: createRoutingRuleBody,
      update: updateRoutingRuleBody,
      view: routingRuleView,
    },
    service: {
      list: routing.listRoutingRules,
      create: routing.createRoutingRule,
      get: viewOf(routing.getRoutingRule, routing.serializeRoutingRule),
      update: routing.updateRoutingRule,
      remove: routing.deleteRoutingRule,
    },
    summaries: {
      list: `Lead routing rules in evaluation order (sortOrder, then creation); paged (limit up to ${routing.MAX_ROUTING_RULES}, the most a workspace can hold).`,
      create:
        'Create a routing rule (owner/admin): on lead creation without ownerId, the first active matching rule assigns the owner.',
      get: 'One lead routing rule.',
      update: 'Update a routing rule (partial; owner/admin).',
      remove: 'Delete a routing rule (owner/admin).',
    },
  });
