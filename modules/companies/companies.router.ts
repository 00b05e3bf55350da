import type { AppDeps, RouteFactory } from '../../platform/http/app-deps';
import * as companies from './companies.service';
import { COMPANY_SUMMARY_FIELDS } from './companies.schemas';
import { projectedList, projectedRead } from '../../platform/shared/list-query';
import { ok, route, type RouteDef } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { childListRoute, timelineRoutes } from '../timeline';
import { companyLookupQuery, companyLookupView, lookupCompany } from './company-lookup';
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
} from './companies.schemas';
import type { CompanyRelations } from './relations';
import { crudRoutes, envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'Companies';
const resources = { id: 'company' };
const parent = { base: '/api/v1/companies', section, kind: 'company', load: companies.getCompany };
// Image fields (avatar, logoUrl) given as a URL are fetched: a failing image host is a 502.
const imageErrors = [502];

/** The company routes, with what they show of people and deals (`related`, from the composition). */
export const companiesRoutesWith =
  (related: CompanyRelations): RouteFactory =>
  (deps) =>
    companiesRoutes(deps, related);

function companiesRoutes({ images }: AppDeps, related: CompanyRelations): RouteDef[] {
  return [
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
    ...crudRoutes({
      base: '/api/v1/companies',
      section,
      kind: 'company',
      access: { read, write },
      schemas: { list: listCompaniesQuery, create: createCompanyBody, update: updateCompanyBody, view: companyView },
      service: {
        list: projectedList(companies.listCompanies, COMPANY_SUMMARY_FIELDS),
        create: (ctx, body, { preview }) => companies.createCompany(ctx, body, { preview, images }),
        get: projectedRead(companies.readCompany),
        update: (ctx, id, body, { preview }) => companies.updateCompany(ctx, id, body, { preview, images }),
        remove: async (ctx, id) => {
          await companies.deleteCompany(ctx, id, related.people.unlinkAll, related.deals.detachAll);
        },
      },
      summaries: {
        list: 'List companies (newest first; oldest change first with updatedSince).',
        create: 'Create a company.',
        get: 'Get one company.',
        update: 'Update a company (partial: only given keys change; customFields merges by name, null removes a key).',
        remove: 'Delete a company; its people and deals stay, unlinked.',
      },
      previewable: true,
      routes: {
        list: { response: envelopes.list(companyReadView) },
        create: { errors: imageErrors },
        get: { query: getCompanyQuery, response: envelopes.data(companyReadView) },
        update: { errors: imageErrors },
      },
    }),
    childListRoute(parent, 'people', 'People linked to the company.', related.people.view, related.people.list),
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
      handler: async ({ ctx, params, body }) => ok(await related.people.link(ctx, params.id, body.personId)),
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
        return ok(await related.people.unlink(ctx, params.id, parsed.personId));
      },
    }),
    childListRoute(parent, 'deals', 'Deals of the company.', related.deals.view, related.deals.list),
    ...timelineRoutes(parent, 'companyId', 'company'),
  ];
}
