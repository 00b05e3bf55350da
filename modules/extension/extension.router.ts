import type { RouteFactory } from '../../platform/http/app-deps';
import { addObservations, getContribution, knownDomains, networkLookup, setContribution } from './extension.service';
import { contributionBody, networkQuery, observationsBody } from './extension.schemas';
import { pageParams } from '../../platform/shared/list-query';
import { ok, pageOf, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { contributionView, knownDomainView, networkProfileView, observationsResultView } from './extension.views';
import { z } from 'zod';

const section = 'Browser extension';
const domainsQuery = z.strictObject(pageParams(1000));

export const extensionRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/extension/contribution',
    section,
    access: { scopes: ['read'] },
    summary:
      'Data-contribution status of the workspace: { enabled, changedAt, changedBy, observations (stored by this workspace) }.',
    response: envelopes.data(contributionView),
    handler: async ({ ctx }) => ok(await getContribution(ctx)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/extension/contribution',
    section,
    access: { scopes: ['write'], roles: ['owner', 'admin'] },
    body: contributionBody,
    summary:
      "Switch data contribution on or off (admin). While on, the workspace's observations are shared with, and it may read, the contributor network.",
    response: envelopes.data(contributionView),
    handler: async ({ ctx, body }) => ok(await setContribution(ctx, body.enabled)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/extension/observations',
    section,
    access: { scopes: ['contribute'] },
    body: observationsBody,
    summary:
      'Store public-profile observations from the extension (1-500; each { profile, kind?, handle?, name, headline, title, companyName, companyProfile, domain, location, industry, employees, observedAt }); one per profile and workspace, newer replaces older. { received, stored, shared }.',
    response: envelopes.data(observationsResultView),
    handler: async ({ ctx, body }) => ok(await addObservations(ctx, body.observations)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/extension/network',
    section,
    access: { scopes: ['read'] },
    query: networkQuery,
    summary:
      'What contributing workspaces observed about a profile (by profile URL or handle): merged public facts, contributor count, first/last seen; never workspace ids or CRM data. 403 unless this workspace contributes.',
    response: envelopes.list(networkProfileView),
    handler: async ({ ctx, query }) => pageOf(await networkLookup(ctx, query), query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/extension/domains',
    section,
    access: { scopes: ['read'] },
    query: domainsQuery,
    summary:
      'Known company domains of the workspace (website, else company e-mail domain; free-mail domains left out), alphabetical: { domain, companyIds }; limit up to 1000.',
    response: envelopes.list(knownDomainView),
    handler: async ({ ctx, query }) => pageOf(await knownDomains(ctx, query), query),
  }),
];
