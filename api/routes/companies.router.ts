import { z } from 'zod';
import type { RouteFactory } from '../app';
import * as companies from '../../domain/companies/companies.service';
import { COMPANY_SUMMARY_FIELDS } from '../../domain/companies/companies.schemas';
import { linkPerson, listCompanyPeople, listDealsFor, unlinkPerson } from '../../domain/people/people.service';
import { imageResolver } from '../http/images';
import { project } from '../../domain/shared/list-query';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import { childListRoute, timelineRoutes } from './sub-lists';
import { companyLookupQuery } from '../../domain/lookups/lookups.schemas';
import { lookupCompany } from '../../domain/lookups/lookup.service';
import {
  companyReadView,
  companyView,
  createCompanyBody,
  getCompanyQuery,
  linkResultView,
  listCompaniesQuery,
  personLinkBody,
  unlinkResultView,
  updateCompanyBody,
} from '../../domain/companies/companies.schemas';
import { companyLookupView } from '../../domain/lookups/lookups.views';
import { personView } from '../../domain/people/people.schemas';
import { dealView } from '../../domain/deals/deals.schemas';
import { envelopes } from '../http/crud';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Companies';
const resources = { id: 'company' };
const parent = { base: '/api/v1/companies', section, kind: 'company', load: companies.getCompany };
// Image fields (avatar, logoUrl) given as a URL are fetched: a failing image host is a 502.
const imageErrors = [502];

export const companiesRoutes: RouteFactory = (deps) => {
  const images = imageResolver(deps.config);
  return [
    route({
      method: 'GET',
      path: '/api/v1/companies',
      section,
      access: read,
      query: listCompaniesQuery,
      summary: 'List companies (newest first; oldest change first with updatedSince).',
      response: envelopes.list(companyReadView),
      handler: async ({ ctx, query }) => {
        const { items, total } = await companies.listCompanies(ctx, query);
        return paged(
          items.map((c) => project(c, { ...query, summary: COMPANY_SUMMARY_FIELDS })),
          { page: query.page, limit: query.limit, total },
        );
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/companies',
      section,
      access: write,
      body: createCompanyBody,
      previewable: true,
      successStatus: 201,
      summary: 'Create a company.',
      response: envelopes.data(companyView),
      responses: { 200: envelopes.preview(companyView) },
      errors: imageErrors,
      handler: async ({ ctx, body, preview }) => {
        const result = await companies.createCompany(ctx, body, { preview, images });
        return preview ? ok(result) : created(result);
      },
    }),
    // Before /:id, which would otherwise take "lookup" for an id.
    route({
      method: 'GET',
      path: '/api/v1/companies/lookup',
      section,
      access: read,
      query: companyLookupQuery,
      summary:
        'Find the workspace company with a professional-network profile URL or web domain (URLs, www. and paths normalised; the website domain, else the company e-mail domain). 200 { data: company | null, matched, matchedOn } — no match is not an error.',
      response: companyLookupView,
      handler: async ({ ctx, query }) => {
        const { data, ...meta } = await lookupCompany(ctx, query);
        return { status: 200, body: { data, ...meta } };
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/companies/:id',
      section,
      access: read,
      params: idParams,
      query: getCompanyQuery,
      resources,
      summary: 'Get one company.',
      response: envelopes.data(companyReadView),
      handler: async ({ ctx, params, query }) => ok(project(await companies.readCompany(ctx, params.id), query)),
    }),
    route({
      method: 'PUT',
      path: '/api/v1/companies/:id',
      section,
      access: write,
      params: idParams,
      body: updateCompanyBody,
      previewable: true,
      resources,
      summary: 'Update a company (partial: only given keys change; customFields merges by name, null removes a key).',
      response: z.union([envelopes.data(companyView), envelopes.preview(companyView)]),
      errors: imageErrors,
      handler: async ({ ctx, params, body, preview }) =>
        ok(await companies.updateCompany(ctx, params.id, body, { preview, images })),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/companies/:id',
      section,
      access: write,
      params: idParams,
      resources,
      summary: 'Delete a company; its people and deals stay, unlinked.',
      response: envelopes.ok,
      handler: async ({ ctx, params }) => {
        await companies.deleteCompany(ctx, params.id);
        return acknowledged();
      },
    }),
    childListRoute(parent, 'people', 'People linked to the company.', personView, listCompanyPeople),
    route({
      method: 'POST',
      path: '/api/v1/companies/:id/people',
      section,
      access: write,
      params: idParams,
      body: personLinkBody,
      resources,
      summary:
        "Link a person to the company (body { personId }); the first linked company becomes the person's primary company.",
      response: envelopes.data(linkResultView),
      handler: async ({ ctx, params, body }) => ok(await linkPerson(ctx, params.id, body.personId)),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/companies/:id/people',
      section,
      access: write,
      params: idParams,
      query: personLinkBody.partial(),
      resources,
      summary: 'Unlink a person from the company ({ personId } in the body or ?personId=).',
      response: envelopes.data(unlinkResultView),
      handler: async ({ ctx, params, query, koa }) => {
        await companies.getCompany(ctx, params.id);
        const parsed = personLinkBody.parse({
          personId: query.personId ?? (koa.request.body as { personId?: unknown } | undefined)?.personId,
        });
        return ok(await unlinkPerson(ctx, params.id, parsed.personId));
      },
    }),
    childListRoute(parent, 'deals', 'Deals of the company.', dealView, (ctx, id, page) =>
      listDealsFor(ctx, { company: id }, page),
    ),
    ...timelineRoutes(parent, 'companyId', 'company'),
  ];
};
