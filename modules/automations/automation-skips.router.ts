import type { RouteFactory } from '../../platform/http/app-deps';
import { listSkips } from './automation-skips.service';
import { listSkipsQuery, skipView } from './engine/skips.schemas';
import { SKIP_RETENTION_DAYS } from './engine/skips';
import { idParams } from '../../platform/shared/schemas';
import { envelopes } from '../../platform/http/crud';
import { pageOf, route } from '../../platform/http/registry';

/** Why an automation did not run (issue 27). */
export const automationSkipsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/automations/:id/skips',
    section: 'Automations',
    access: { scopes: ['read'] },
    params: idParams,
    query: listSkipsQuery,
    resources: { id: 'automation' },
    summary: `Trigger evaluations of this automation that started no run, newest first, optionally for one record (entityType, entityId) or one reason: conditions_false (the trigger's filters did not match), entity_type_mismatch, inactive, run_cap (maxRunsPer… or maxTotalRuns), rate_limited (webhook calls), duplicate (a repeated trigger key), workspace_suspended, loop_guard (the event came from this automation's own run). Each with the values that decided it. Kept ${SKIP_RETENTION_DAYS} days.`,
    response: envelopes.list(skipView),
    handler: async ({ ctx, params, query }) => pageOf(await listSkips(ctx, params.id, query), query),
  }),
];
