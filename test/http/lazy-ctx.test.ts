// A request's Ctx makes its EM fork only when the handler uses ctx.em (lazyWorkspaceCtx): the lean reads
// take the actor's workspace instead and must stay exactly as fail-closed as through a bound fork.
import type { Tenant, TestApp } from '../support/app';
import { withTwoTenants } from '../support/two-tenants';
import { makeCompany } from '../support/factories';
import { Company } from '../../modules/companies/company.entity';
import { boundWorkspaceId, leanPoolOf, leanQuery } from '../../platform/orm/lean';
import { findRowById, findPageRows } from '../../platform/orm/lean-rows';
import { lazyWorkspaceCtx, leanScopeOf } from '../../platform/orm/tenant';

let app: TestApp;
let t: Tenant;
let other: Tenant;
withTwoTenants((s) => ({ app, t, other } = s));
const lazyFor = (tenant: Tenant) =>
  lazyWorkspaceCtx(app.runtime.deps.orm.em, { workspaceId: tenant.workspaceId, userId: tenant.userId });

describe('lazyWorkspaceCtx', () => {
  it('lean reads through it use the actor workspace and make no fork; another workspace reads nothing', async () => {
    const id = (await makeCompany(t.http)).body.data._id as string;
    const mine = lazyFor(t);
    const theirs = lazyFor(other);
    expect(((await findRowById(mine, Company, id)) as { _id: string })._id).toBe(id);
    expect(await findRowById(theirs, Company, id)).toBeNull();
    const page = await findPageRows(theirs, Company, { prop: 'createdAt', dir: 'desc' }, { page: 1, limit: 50 });
    expect(page.items.map((c) => c._id)).not.toContain(id);
    expect(boundWorkspaceId(mine)).toBe(t.workspaceId);
    expect(leanScopeOf(mine)).toEqual({ em: app.runtime.deps.orm.em, workspaceId: t.workspaceId });
  });

  it('ctx.em is one fork bound to the workspace; once made, the lean reads go through it', async () => {
    const ctx = lazyFor(t);
    const em = ctx.em;
    expect(ctx.em).toBe(em);
    expect(em).not.toBe(app.runtime.deps.orm.em);
    expect(boundWorkspaceId(em)).toBe(t.workspaceId);
    expect(leanScopeOf(ctx)).toBeUndefined();
    expect(boundWorkspaceId(ctx)).toBe(t.workspaceId);
    // Inside a transaction of that fork, a lean read sees the transaction's own uncommitted row.
    await em
      .transactional(async (tx) => {
        const id = 'b'.repeat(24);
        await leanQuery(
          tx,
          `insert into company (id, workspace_id, created_at, updated_at, name, custom_fields, tags)
           values ($1, $2, now(), now(), 'Uncommitted', '[]', '{}')`,
          [id, t.workspaceId],
        );
        expect((await findRowById(tx, Company, id))?.name).toBe('Uncommitted');
        throw new Error('rollback');
      })
      .catch((err: Error) => expect(err.message).toBe('rollback'));
  });

  it('a spread copy is an ordinary Ctx with the fork', () => {
    const copy = { ...lazyFor(t) };
    expect(leanScopeOf(copy)).toBeUndefined();
    expect(boundWorkspaceId(copy.em)).toBe(t.workspaceId);
  });

  it("a request's key count and lean read use the API's lean pool, never a checkout of the ORM's pool", async () => {
    const id = (await makeCompany(t.http)).body.data._id as string;
    const em = app.runtime.deps.orm.em;
    const pool = leanPoolOf(em)!;
    expect(pool).toBeDefined();
    const knexClient = em.getConnection().getKnex().client as { acquireConnection: () => Promise<unknown> };
    const checkouts = jest.spyOn(knexClient, 'acquireConnection');
    const leanStatements = jest.spyOn(pool, 'query');
    try {
      for (const path of [`/api/v1/companies/${id}`, '/api/v1/companies?page=1&limit=5', '/api/v1/whoami']) {
        expect((await t.http.get(path)).status).toBe(200);
      }
      expect(checkouts).not.toHaveBeenCalled();
      expect(leanStatements.mock.calls.length).toBeGreaterThanOrEqual(6); // a count and a read per request
      expect(pool.totalCount).toBeLessThanOrEqual(app.config.dbLeanPoolMax);
    } finally {
      checkouts.mockRestore();
      leanStatements.mockRestore();
    }
  });
});
