// The set-up of the tests across two workspaces (lean reads, isolation, references): one app, two workspaces, and an
// owner's read context for either.
import type { Actor, Ctx } from '../../platform/context';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { startTestApp, type Tenant, type TestApp } from './app';

export interface TwoTenants {
  app: TestApp;
  t: Tenant;
  other: Tenant;
}

/** Starts the app and two tenants before the file's tests (hands them to `set`), closes it after. */
export function withTwoTenants(set: (s: TwoTenants) => void, more?: (s: TwoTenants) => Promise<void>): void {
  let app: TestApp | undefined;
  beforeAll(async () => {
    app = await startTestApp();
    const [t, other] = await Promise.all([app.tenant(), app.tenant()]);
    const s = { app, t, other };
    set(s);
    await more?.(s);
  });
  afterAll(() => app?.close());
}

/** What a service function gets for an owner of `tenant` with the read scope (acting as `userId`). */
export const ownerReadCtx = (app: TestApp, tenant: Tenant, userId = tenant.userId): Ctx =>
  ({
    em: forkForWorkspace(app.runtime.deps.orm.em, tenant.workspaceId),
    actor: { workspaceId: tenant.workspaceId, userId, role: 'owner', scopes: ['read'] } as Actor,
  }) as unknown as Ctx;
