import type { RouteFactory } from '../app';
import * as defs from '../../domain/custom-fields/custom-fields.service';
import { searchByCustomFields } from '../../domain/custom-fields/custom-field-search.service';
import { CUSTOM_FIELD_ENTITY_TYPES } from '../../domain/custom-fields/custom-field-definition.entity';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import { searchDescription } from './custom-fields.search-doc';
import {
  createDefinitionBody,
  listDefinitionsQuery,
  projectDefinitionsQuery,
  searchBody,
  updateDefinitionBody,
} from '../../domain/custom-fields/custom-fields.schemas';

const read = { scopes: ['read'] } as const;
// Definitions are the workspace's schema: changing them is an owner/admin task.
const admin = { scopes: ['write'], roles: ['owner', 'admin'] } as const;
const section = 'Custom fields';
const resources = { id: 'custom-field' };

export const customFieldsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/custom-fields',
    section,
    access: read,
    query: listDefinitionsQuery,
    summary: 'Custom field definitions, by entity type then order; all entity types when entityType is omitted.',
    handler: async ({ ctx, query }) => {
      const { items, total } = await defs.listDefinitions(ctx, {
        ...query,
        entityTypes: query.entityType ? [query.entityType] : undefined,
      });
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/custom-fields',
    section,
    access: admin,
    body: createDefinitionBody,
    successStatus: 201,
    summary: `Create a definition (entityType: ${CUSTOM_FIELD_ENTITY_TYPES.join(', ')}); key unique per entity type (409), options required for select/multi_select. Owner/admin.`,
    handler: async ({ ctx, body }) => created(await defs.createDefinition(ctx, body)),
  }),
  // Registered before /:id so that "search" is not taken for an id.
  route({
    method: 'GET',
    path: '/api/v1/custom-fields/search',
    section,
    access: read,
    summary: 'Self-description of POST /custom-fields/search: body fields, operators and an example.',
    handler: async () => ok(searchDescription()),
  }),
  route({
    method: 'POST',
    path: '/api/v1/custom-fields/search',
    section,
    access: read,
    body: searchBody,
    summary: 'Records of one entity type whose custom field values match every filter (AND), newest first.',
    handler: async ({ ctx, body }) => {
      const { items, total } = await searchByCustomFields(ctx, body);
      return paged(items, { page: body.page, limit: body.limit, total });
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/custom-fields/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'One definition.',
    handler: async ({ ctx, params }) => ok(defs.serializeDefinition(await defs.getDefinition(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/custom-fields/:id',
    section,
    access: admin,
    params: idParams,
    body: updateDefinitionBody,
    resources,
    summary:
      'Update a definition (partial). key and entityType cannot change; type cannot change while records hold values (409). Owner/admin.',
    handler: async ({ ctx, params, body }) => ok(await defs.updateDefinition(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/custom-fields/:id',
    section,
    access: admin,
    params: idParams,
    resources,
    summary: 'Delete a definition; values stored on records stay as free-form keys. Owner/admin.',
    handler: async ({ ctx, params }) => {
      await defs.deleteDefinition(ctx, params.id);
      return acknowledged();
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
