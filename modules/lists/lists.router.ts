import type { RouteFactory } from '../../platform/http/app-deps';
import type { Ctx } from '../../platform/context';
import * as lists from './lists.service';
import { parseBody } from '../../platform/http/parse-body';
import { ok, paged, route } from '../../platform/http/registry';
import { crudRoutes, envelopes } from '../../platform/http/crud';
import { idParams, pageQuery } from '../../platform/shared/schemas';
import {
  createListBody,
  listItemsAddedView,
  listItemsBody,
  listItemsRemovedView,
  listItemView,
  listListsQuery,
  listView,
  removeItemsQuery,
  updateListBody,
} from './lists.schemas';
import { read, write } from '../../platform/http/access';

const section = 'Lists';
const resources = { id: 'list' };

/** Item bodies are checked after the list is loaded, so another workspace's list id answers 404, not 400. */
async function itemIds(ctx: Ctx, listId: string, body: unknown): Promise<string[]> {
  await lists.getList(ctx, listId);
  return parseBody(listItemsBody, body).entityIds;
}

export const listsRoutes: RouteFactory = () => [
  ...crudRoutes({
    base: '/api/v1/lists',
    section,
    kind: 'list',
    access: { read, write },
    schemas: { list: listListsQuery, create: createListBody, update: updateListBody, view: listView },
    service: {
      list: lists.listLists,
      create: lists.createList,
      get: lists.getListView,
      update: lists.updateList,
      remove: lists.deleteList,
    },
    summaries: {
      list: 'Lists, newest first, each with itemCount; filter by entityType or name (q).',
      create: 'Create a list of company, person, lead or deal records.',
      get: 'One list with itemCount.',
      update: 'Update name and description (partial); the entity type cannot change.',
      remove: 'Delete a list and its items (the records stay).',
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
    response: envelopes.list(listItemView),
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
    response: envelopes.data(listItemsAddedView),
    handler: async ({ ctx, params, koa }) =>
      ok(await lists.addToList(ctx, params.id, await itemIds(ctx, params.id, koa.request.body))),
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
    response: envelopes.data(listItemsRemovedView),
    handler: async ({ ctx, params, query, koa }) => {
      const body = query.entityId ? { entityIds: [query.entityId] } : koa.request.body;
      return ok(await lists.removeFromList(ctx, params.id, await itemIds(ctx, params.id, body)));
    },
  }),
];
