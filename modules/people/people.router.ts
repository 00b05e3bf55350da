import type { AppDeps, RouteFactory } from '../../platform/http/app-deps';
import * as people from './people.service';
import { PERSON_SUMMARY_FIELDS } from './people.schemas';
import { projectedList, projectedRead } from '../../platform/shared/list-query';
import { route, type RouteDef } from '../../platform/http/registry';
import { childListRoute, timelineRoutes } from '../timeline';
import { lookupPerson, personLookupQuery, personLookupView } from './person-lookup';
import {
  createPersonBody,
  getPersonQuery,
  listPeopleQuery,
  personReadView,
  personView,
  updatePersonBody,
} from './people.schemas';
import { companyView } from '../companies';
import type { PersonRelations } from './relations';
import { crudRoutes, envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'People';
const parent = { base: '/api/v1/people', section, kind: 'person', load: people.getPerson };
// An avatar given as a URL is fetched: a failing image host is a 502.
const imageErrors = [502];

/** The person routes, with what they show of deals (`related`, from the composition). */
export const peopleRoutesWith =
  (related: PersonRelations): RouteFactory =>
  (deps) =>
    peopleRoutes(deps, related);

function peopleRoutes({ images }: AppDeps, related: PersonRelations): RouteDef[] {
  return [
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
    ...crudRoutes({
      base: '/api/v1/people',
      section,
      kind: 'person',
      access: { read, write },
      schemas: { list: listPeopleQuery, create: createPersonBody, update: updatePersonBody, view: personView },
      service: {
        list: projectedList(people.listPeople, PERSON_SUMMARY_FIELDS),
        create: (ctx, body, { preview }) => people.createPerson(ctx, body, { preview, images }),
        get: projectedRead(people.readPerson),
        update: (ctx, id, body, { preview }) => people.updatePerson(ctx, id, body, { preview, images }),
        remove: async (ctx, id) => {
          await people.deletePerson(ctx, id, related.deals.detachAll);
        },
      },
      summaries: {
        list: 'List people (newest first; oldest change first with updatedSince).',
        create: 'Create a person.',
        get: 'Get one person.',
        update: 'Update a person (partial: only given keys change; customFields merges by name, null removes a key).',
        remove: 'Delete a person; company links are removed and deals keep no person reference.',
      },
      previewable: true,
      routes: {
        list: { response: envelopes.list(personReadView) },
        create: { errors: imageErrors },
        get: { query: getPersonQuery, response: envelopes.data(personReadView) },
        update: { errors: imageErrors },
      },
    }),
    childListRoute(parent, 'companies', 'Companies the person is linked to.', companyView, people.listPersonCompanies),
    childListRoute(parent, 'deals', 'Deals where the person is the contact.', related.deals.view, related.deals.list),
    ...timelineRoutes(parent, 'personId', 'person'),
  ];
}
