import type { z } from 'zod';
import type { RouteFactory } from '../app';
import * as lists from '../../domain/lists/lists.service';
import { DomainError } from '../../domain/errors';
import { formatZodError } from '../../domain/shared/schemas';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams, pageQuery } from '../../domain/shared/schemas';
import {
  createListBody,
  listItemsBody,
  listListsQuery,
  removeItemsQuery,
  updateListBody,
} from '../../domain/lists/lists.schemas';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const section = 'Lists';
const resources = { id: 'list' };

// Item bodies are checked after the list is loaded, so another workspace's list id answers 404, not 400.
function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const { message, details } = formatZodError(parsed.error, 'body');
    throw new DomainError('validation', message, details);
  }
  return parsed.data;
}

export const listsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/lists',
    section,
    access: read,
    query: listListsQuery,
    summary: 'Lists, newest first, each with itemCount; filter by entityType or name (q).',
    handler: async ({ ctx, query }) => {
      const { items, total } = await lists.listLists(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/lists',
    section,
    access: write,
    body: createListBody,
    successStatus: 201,
    summary: 'Create a list of company, person, lead or deal records.',
    handler: async ({ ctx, body }) => created(await lists.createList(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/lists/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'One list with itemCount.',
    handler: async ({ ctx, params }) => ok(await lists.getListView(ctx, params.id)),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/lists/:id',
    section,
    access: write,
    params: idParams,
    body: updateListBody,
    resources,
    summary: 'Update name and description (partial); the entity type cannot change.',
    handler: async ({ ctx, params, body }) => ok(await lists.updateList(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/lists/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a list and its items (the records stay).',
    handler: async ({ ctx, params }) => {
      await lists.deleteList(ctx, params.id);
      return acknowledged();
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/lists/:id/items',
    section,
    access: read,
    params: idParams,
    query: pageQuery(),
    resources,
    summary: 'Items, most recently added first: { entityId, entityType, addedAt, addedBy, entity: <record summary> }.',
    handler: async ({ ctx, params, query }) => {
      const { items, total } = await lists.listItems(ctx, params.id, query);
      return paged(items, { ...query, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/lists/:id/items',
    section,
    access: write,
    params: idParams,
    body: listItemsBody.partial(),
    resources,
    summary:
      "Add records ({ entityIds }, 1-500) of the list's type; all must exist, else 400 and nothing is added. Re-adding is a no-op: answers { added, alreadyPresent }.",
    handler: async ({ ctx, params, koa }) => {
      await lists.getList(ctx, params.id);
      const body = parseBody(listItemsBody, koa.request.body);
      return ok(await lists.addToList(ctx, params.id, body.entityIds));
    },
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/lists/:id/items',
    section,
    access: write,
    params: idParams,
    query: removeItemsQuery,
    resources,
    summary: 'Remove records ({ entityIds } in the body, or ?entityId=); answers { removed, notPresent }.',
    handler: async ({ ctx, params, query, koa }) => {
      await lists.getList(ctx, params.id);
      const body = parseBody(listItemsBody, query.entityId ? { entityIds: [query.entityId] } : koa.request.body);
      return ok(await lists.removeFromList(ctx, params.id, body.entityIds));
    },
  }),
];
