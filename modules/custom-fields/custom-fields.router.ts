import type { RouteFactory } from '../../platform/http/app-deps';
import * as defs from './custom-fields.service';
import { searchByCustomFields } from './custom-field-search.service';
import { CUSTOM_FIELD_ENTITY_TYPES } from './custom-field-definition.entity';
import { ok, paged, route } from '../../platform/http/registry';
import { crudRoutes, envelopes, viewOf } from '../../platform/http/crud';
import { searchDescription } from './custom-fields.search-doc';
import {
  createDefinitionBody,
  customFieldDefinitionView,
  customFieldSearchDescriptionView,
  customFieldSearchHitView,
  listDefinitionsQuery,
  projectDefinitionsQuery,
  searchBody,
  updateDefinitionBody,
} from './custom-fields.schemas';
import { admin, read } from '../../platform/http/access';

// Definitions are the workspace's schema: changing them is an owner/admin task.
const section = 'Custom fields';

export const customFieldsRoutes: RouteFactory = () => [
  // Registered before /:id (crudRoutes below) so that "search" is not taken for an id.
  route({
    method: 'GET',
    path: '/api/v1/custom-fields/search',
    section,
    access: read,
    summary: 'Self-description of POST /custom-fields/search: body fields, operators and an example.',
    response: envelopes.data(customFieldSearchDescriptionView),
    handler: async () => ok(searchDescription()),
  }),
  route({
    method: 'POST',
    path: '/api/v1/custom-fields/search',
    section,
    access: read,
    body: searchBody,
    summary: 'Records of one entity type whose custom field values match every filter (AND), newest first.',
    response: envelopes.list(customFieldSearchHitView),
    handler: async ({ ctx, body }) => {
      const { items, total } = await searchByCustomFields(ctx, body);
      return paged(items, { page: body.page, limit: body.limit, total });
    },
  }),
  ...crudRoutes({
    base: '/api/v1/custom-fields',
    section,
    kind: 'custom-field',
    access: { read, write: admin },
    schemas: {
      list: listDefinitionsQuery,
      create: createDefinitionBody,
      update: updateDefinitionBody,
      view: customFieldDefinitionView,
    },
    service: {
      list: (ctx, query) =>
        defs.listDefinitions(ctx, { ...query, entityTypes: query.entityType ? [query.entityType] : undefined }),
      create: defs.createDefinition,
      get: viewOf(defs.getDefinition, defs.serializeDefinition),
      update: defs.updateDefinition,
      remove: defs.deleteDefinition,
    },
    summaries: {
      list: 'Custom field definitions, by entity type then order; all entity types when entityType is omitted.',
      create: `Create a definition (entityType: ${CUSTOM_FIELD_ENTITY_TYPES.join(', ')}); key unique per entity type (409), options required for select/multi_select. Owner/admin.`,
      get: 'One definition.',
      update:
        'Update a definition (partial). key and entityType cannot change; type cannot change while records hold values (409). Owner/admin.',
      remove: 'Delete a definition; values stored on records stay as free-form keys. Owner/admin.',
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/project-custom-fields',
    section,
    access: read,
    query: projectDefinitionsQuery,
    summary:
      'Project and task custom field definitions (create them with POST /custom-fields, entityType project or task); forCreateDialog=true lists only fields shown in the create dialog.',
    response: envelopes.list(customFieldDefinitionView),
    handler: async ({ ctx, query }) => {
      const { items, total } = await defs.listDefinitions(ctx, {
        page: query.page,
        limit: query.limit,
        entityTypes: query.entityType ? [query.entityType] : ['project', 'task'],
        forCreateDialog: query.forCreateDialog,
      });
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
];
