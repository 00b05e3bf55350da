import type { RouteFactory } from '../../platform/http/app-deps';
import * as users from './users.service';
import { ok, pageOf, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { listUsersQuery, updateUserBody, userView } from './users.schemas';
import { envelopes } from '../../platform/http/crud';

const section = 'Users';
const resources = { id: 'user' };

export const usersRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/users',
    section,
    access: { scopes: ['read'] },
    query: listUsersQuery,
    summary: 'Users of the workspace sorted by name; search matches name and e-mail.',
    response: envelopes.list(userView),
    handler: async ({ ctx, query }) => pageOf(await users.listUsers(ctx, query), query),
  }),
  route({
    method: 'GET',
    path: '/api/v1/users/:id',
    section,
    access: { scopes: ['read'] },
    params: idParams,
    resources,
    summary: 'One user.',
    response: envelopes.data(userView),
    handler: async ({ ctx, params }) => ok(users.serializeUser(await users.getUser(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/users/:id',
    section,
    access: { scopes: ['write'] },
    params: idParams,
    body: updateUserBody,
    resources,
    summary:
      'Update firstName, lastName, phone, defaultUserPhone (partial). A member may update only their own user; owners and admins any (403 otherwise).',
    response: envelopes.data(userView),
    handler: async ({ ctx, params, body }) => ok(await users.updateUser(ctx, params.id, body)),
  }),
];
