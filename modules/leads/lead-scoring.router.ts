import type { RouteFactory } from '../../platform/http/app-deps';
import * as scoring from './lead-scoring.service';
import { crudRoutes, viewOf } from '../../platform/http/crud';
import { pageQuery } from '../../platform/shared/schemas';
import { createScoringRuleBody, scoringRuleView, updateScoringRuleBody } from './lead-scoring.schemas';

export const leadScoringRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/lead-scoring/rules',
    section: 'Lead scoring',
    kind: 'lead-scoring-rule',
    access: { read: { scopes: ['read'] }, write: { scopes: ['write'], roles: ['owner', 'admin'] } },
    schemas: {
      list: pageQuery(scoring.MAX_SCORING_RULES),
      create: createScoringRuleBody,
      update: updateScoringRuleBody,
      view: scoringRuleView,
    },
    service: {
      list: scoring.listScoringRules,
      create: scoring.createScoringRule,
      get: viewOf(scoring.getScoringRule, scoring.serializeScoringRule),
      update: scoring.updateScoringRule,
      remove: scoring.deleteScoringRule,
    },
    summaries: {
      list: `Lead scoring rules, sorted by sortOrder (then creation); paged (limit up to ${scoring.MAX_SCORING_RULES}, the most a workspace can hold).`,
      create: 'Create a scoring rule (owner/admin); all leads are rescored in the background.',
      get: 'One lead scoring rule.',
      update: 'Update a scoring rule (partial; owner/admin); all leads are rescored in the background.',
      remove: 'Delete a scoring rule (owner/admin); all leads are rescored in the background.',
    },
  });
