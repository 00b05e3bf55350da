import { z } from 'zod';
import type { RouteFactory } from '../app';
import * as people from '../../domain/people/people.service';
import { serializePerson } from '../../domain/people/people.service';
import { PERSON_SUMMARY_FIELDS } from '../../domain/people/people.schemas';
import { imageResolver } from '../http/images';
import { project } from '../../domain/shared/list-query';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import { childListRoute, timelineRoutes } from './sub-lists';
import { personLookupQuery } from '../../domain/lookups/lookups.schemas';
import { lookupPerson } from '../../domain/lookups/lookup.service';
import {
  createPersonBody,
  getPersonQuery,
  listPeopleQuery,
  personReadView,
  personView,
  updatePersonBody,
} from '../../domain/people/people.schemas';
import { personLookupView } from '../../domain/lookups/lookups.views';
import { companyView } from '../../domain/companies/companies.schemas';
import { dealView } from '../../domain/deals/deals.schemas';
import { envelopes } from '../http/crud';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'People';
const resources = { id: 'person' };
const parent = { base: '/api/v1/people', section, kind: 'person', load: people.getPerson };
// An avatar given as a URL is fetched: a failing image host is a 502.
const imageErrors = [502];

export const peopleRoutes: RouteFactory = (deps) => {
  const images = imageResolver(deps.config);
  return [
    route({
      method: 'GET',
      path: '/api/v1/people',
      section,
      access: read,
      query: listPeopleQuery,
      summary: 'List people (newest first; oldest change first with updatedSince).',
      response: envelopes.list(personReadView),
      handler: async ({ ctx, query }) => {
        const { items, total } = await people.listPeople(ctx, query);
        return paged(
          items.map((p) => project(p, { ...query, summary: PERSON_SUMMARY_FIELDS })),
          { page: query.page, limit: query.limit, total },
        );
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/people',
      section,
      access: write,
      body: createPersonBody,
      previewable: true,
      successStatus: 201,
      summary: 'Create a person.',
      response: envelopes.data(personView),
      responses: { 200: envelopes.preview(personView) },
      errors: imageErrors,
      handler: async ({ ctx, body, preview }) => {
        const result = await people.createPerson(ctx, body, { preview, images });
        return preview ? ok(result) : created(result);
      },
    }),
    // Before /:id, which would otherwise take "lookup" for an id.
    route({
      method: 'GET',
      path: '/api/v1/people/lookup',
      section,
      access: read,
      query: personLookupQuery,
      summary:
        'Find the workspace person with a professional-network profile URL (normalised). 200 { data: person | null, matched, matchedOn }; profile is required.',
      response: personLookupView,
      handler: async ({ ctx, query }) => {
        const { data, ...meta } = await lookupPerson(ctx, query);
        return { status: 200, body: { data, ...meta } };
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/people/:id',
      section,
      access: read,
      params: idParams,
      query: getPersonQuery,
      resources,
      summary: 'Get one person.',
      response: envelopes.data(personReadView),
      handler: async ({ ctx, params, query }) =>
        ok(project(serializePerson(await people.getPerson(ctx, params.id)), query)),
    }),
    route({
      method: 'PUT',
      path: '/api/v1/people/:id',
      section,
      access: write,
      params: idParams,
      body: updatePersonBody,
      previewable: true,
      resources,
      summary: 'Update a person (partial: only given keys change; customFields merges by name, null removes a key).',
      response: z.union([envelopes.data(personView), envelopes.preview(personView)]),
      errors: imageErrors,
      handler: async ({ ctx, params, body, preview }) =>
        ok(await people.updatePerson(ctx, params.id, body, { preview, images })),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/people/:id',
      section,
      access: write,
      params: idParams,
      resources,
      summary: 'Delete a person; company links are removed and deals keep no person reference.',
      response: envelopes.ok,
      handler: async ({ ctx, params }) => {
        await people.deletePerson(ctx, params.id);
        return acknowledged();
      },
    }),
    childListRoute(parent, 'companies', 'Companies the person is linked to.', companyView, people.listPersonCompanies),
    childListRoute(parent, 'deals', 'Deals where the person is the contact.', dealView, (ctx, id, page) =>
      people.listDealsFor(ctx, { personRef: id }, page),
    ),
    ...timelineRoutes(parent, 'personId', 'person'),
  ];
};
