// GET /api/v1/whoami reads the workspace and the key's user in one statement without the ORM
// (modules/workspaces/whoami.service.ts): the answer must be what the ORM-loaded entities give, and
// the user is only ever found inside the workspace bound to the request.
import type { Tenant, TestApp } from '../../../test/support/app';
import { ownerReadCtx, withTwoTenants } from '../../../test/support/two-tenants';
import { getWhoami } from '../whoami.service';
import { User } from '../user.entity';
import { Workspace } from '../workspace.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';

let app: TestApp;
let t: Tenant;
let other: Tenant;
withTwoTenants((s) => ({ app, t, other } = s));
const ctxFor = (tenant: Tenant, userId = tenant.userId) => ownerReadCtx(app, tenant, userId);

describe('GET /api/v1/whoami (lean read)', () => {
  it('answers what the ORM-loaded workspace and user give, field for field', async () => {
    const em = forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId);
    await em.nativeUpdate(User, { _id: t.userId }, { firstName: 'Ada', lastName: 'Lovelace' });
    await em.nativeUpdate(Workspace, { _id: t.workspaceId }, { plan: 'pro', timezone: 'America/New_York' });
    const res = await t.http.get('/api/v1/whoami');
    expect(res.status).toBe(200);
    const orm = em.fork();
    const workspace = (await orm.findOne(Workspace, { _id: t.workspaceId }))!;
    const user = (await orm.findOne(User, { _id: t.userId }))!;
    expect(res.body.data.workspace).toEqual({
      _id: workspace._id,
      name: workspace.name,
      plan: 'pro',
      timezone: 'America/New_York',
    });
    expect(res.body.data.user).toEqual({ _id: user._id, name: 'Ada Lovelace', email: user.email, role: user.role });
    // No last name: the first name alone, as before.
    await em.nativeUpdate(User, { _id: t.userId }, { lastName: null });
    expect((await t.http.get('/api/v1/whoami')).body.data.user.name).toBe('Ada');
  });

  it('finds the user only inside the bound workspace, and fails closed without one', async () => {
    // Another workspace's user id: null, as the tenant filter would answer.
    const view = await getWhoami(ctxFor(t, other.userId), { id: 'k', prefix: 'sb_' });
    expect(view.workspace._id).toBe(t.workspaceId);
    expect(view.user).toBeNull();
    const own = await getWhoami(ctxFor(t), { id: 'k', prefix: 'sb_' });
    expect(own.user?._id).toBe(t.userId);
    // An EM bound to another workspace than the actor's, or to none: refused.
    await expect(
      getWhoami(
        { ...ctxFor(t), em: forkForWorkspace(app.runtime.deps.orm.em, other.workspaceId) },
        { id: 'k', prefix: 'sb_' },
      ),
    ).rejects.toThrow(/workspace/);
    await expect(
      getWhoami({ ...ctxFor(t), em: app.runtime.deps.orm.em.fork() }, { id: 'k', prefix: 'sb_' }),
    ).rejects.toThrow(/no workspace bound/);
  });
});
