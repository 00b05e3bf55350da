import type { RouteFactory } from '../../platform/http/app-deps';
import { findAvatar } from './avatar.service';
import { cvrMatchQuery } from './lookups.schemas';
import { avatarResultView, registryMatchView, webPresenceView } from './lookups.views';
import { envelopes } from '../../platform/http/crud';
import { matchRegistry } from './registry-match.service';
import { findWebPresence } from './web-presence.service';
import { ok, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';

const section = 'Registry lookups';

export const lookupsRoutes: RouteFactory = (deps) => {
  const { images, registry } = deps;
  return [
    route({
      method: 'GET',
      path: '/api/v1/cvr/match',
      section,
      access: { scopes: ['read'] },
      query: cvrMatchQuery,
      summary:
        'Match a company in the national company registry by profile URL or domain (through the workspace company they find and its cvr), exact name, or domain (registry web/e-mail domain must equal it). 200 { data: registry company | null, matched, matchedOn, companyId }; 503 not_configured without CVR_API_URL.',
      response: registryMatchView,
      errors: [502],
      handler: async ({ ctx, query }) => {
        const { data, ...meta } = await matchRegistry(ctx, registry, query);
        return { status: 200, body: { data, ...meta } };
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/companies/:id/find-web-presence',
      section,
      access: { scopes: ['write'] },
      params: idParams,
      resources: { id: 'company' },
      summary:
        "Fill only the empty website, logo and profile link: website from the company's (else its people's) e-mail domain unless free-mail, else from the registry; logo and profile link from the registry when CVR_API_URL is set. data.status updated | already_filled | not_found, data.hint says what to do next.",
      response: envelopes.data(webPresenceView),
      handler: async ({ ctx, params }) => ok(await findWebPresence(ctx, params.id, { registry, images })),
    }),
    route({
      method: 'POST',
      path: '/api/v1/people/:id/find-avatar',
      section,
      access: { scopes: ['write'] },
      params: idParams,
      resources: { id: 'person' },
      summary:
        "Fill only an empty avatar from the public avatar of the person's e-mail addresses (Gravatar protocol at AVATAR_LOOKUP_URL), stored as a workspace image. data.status updated | already_filled | not_found, plus data.hint.",
      response: envelopes.data(avatarResultView),
      errors: [502],
      handler: async ({ ctx, params }) =>
        ok(
          await findAvatar(ctx, params.id, {
            avatarLookupUrl: deps.config.lookups.avatarLookupUrl,
            allowHosts: deps.config.outboundAllowHosts,
            images,
          }),
        ),
    }),
  ];
};
