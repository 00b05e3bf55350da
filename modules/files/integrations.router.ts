import type { RouteFactory } from '../../platform/http/app-deps';
import { listIntegrations, syncIntegration } from './integrations.service';
import { ok, paged, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { integrationSyncResultView, integrationView } from './integrations.views';
import { CLOUD_PROVIDERS } from '../../platform/ports/cloud-provider.port';
import { integrationsQuery, syncBody } from './files.schemas';

const section = 'Integrations';

export const integrationsRoutes: RouteFactory = (deps) => [
  route({
    method: 'GET',
    path: '/api/v1/integrations',
    section,
    access: { scopes: ['read'] },
    query: integrationsQuery,
    summary:
      'Providers of the deployment (cloud storage, e-mail, SMS, AI, file storage): configured, connected for this workspace, the variables that set them up (names only) and cloud sync health.',
    response: envelopes.list(integrationView),
    handler: async ({ ctx, query }) => {
      const all = await listIntegrations(ctx, deps.config);
      return paged(all.slice((query.page - 1) * query.limit, query.page * query.limit), {
        page: query.page,
        limit: query.limit,
        total: all.length,
      });
    },
  }),
  // One route per syncable provider (the spec's /integrations/:provider/sync): an unknown provider has no route (404).
  ...CLOUD_PROVIDERS.map((provider) =>
    route({
      method: 'POST',
      path: `/api/v1/integrations/${provider}/sync`,
      section,
      access: { scopes: ['admin'] },
      body: syncBody,
      summary: `Sync ${provider} now: re-read linked cloud files (fullSync: every file; otherwise those not checked since the last success) and record the sync health.`,
      description:
        'Not set up: 503 not_configured naming the variables. Other providers (smtp, sms_gateway, ai, file_storage) have no sync: 404.',
      response: envelopes.data(integrationSyncResultView),
      // 502: the provider refused or could not be reached (the failure is kept as sync health).
      errors: [502],
      handler: async ({ ctx, body }) => ok(await syncIntegration(ctx, deps.config, provider, body.fullSync)),
    }),
  ),
];
