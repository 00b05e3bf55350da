import type { Role, Scope } from '../../platform/context';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { createApiKey } from '../../modules/workspaces/api-keys.service';
import { createUser } from '../../modules/workspaces/workspaces.service';
import { HttpClient, type TestApp } from './app';
import { unique } from './factories';

export interface TestUser {
  userId: string;
  http: HttpClient;
}

/** Another user of the workspace with their own key (users are created by operators, not the API). */
export async function makeUser(
  app: TestApp,
  workspaceId: string,
  role: Role,
  opts: { scopes?: Scope[]; firstName?: string; lastName?: string; email?: string } = {},
): Promise<TestUser> {
  const em = app.runtime.deps.orm.em;
  const user = await createUser(forkForWorkspace(em, workspaceId), {
    workspaceId,
    email: opts.email ?? `user-${unique()}@example.test`,
    firstName: opts.firstName ?? 'User',
    lastName: opts.lastName,
    role,
  });
  const key = await createApiKey(em.fork(), {
    workspaceId,
    scopes: opts.scopes ?? ['read', 'write'],
    role,
    userId: user.id,
  });
  return { userId: user.id, http: new HttpClient(app.baseUrl, key.apiKey) };
}
