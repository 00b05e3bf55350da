// The unfiltered company and deal lists read a page and the total in one statement without the ORM
// (findPageRows in domain/orm/lean.ts): every page must be what the ORM's findAndCount, serialized,
// gives (order with ties on the timestamp, past the end, other workspaces' rows never included).
import type { Tenant, TestApp } from '../support/app';
import { withTwoTenants } from '../support/two-tenants';
import { factories } from '../support/factories';
import { serializeCompany } from '../../modules/companies/companies.service';
import { Company } from '../../modules/companies/company.entity';
import { serializeDeal } from '../../modules/deals/deals.service';
import { Deal } from '../../modules/deals/deal.entity';
import { findPageRows } from '../../platform/orm/lean-rows';
import { forkForWorkspace } from '../../platform/orm/tenant';

let app: TestApp;
let t: Tenant;
let other: Tenant;
withTwoTenants(
  (s) => ({ app, t, other } = s),
  async () => {
    for (const tenant of [t, other])
      for (let i = 0; i < 5; i++) {
        await factories.company!(tenant.http);
        await factories.deal!(tenant.http);
      }
    // Two rows of each with the same creation time: the id decides their order.
    const em = forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId);
    const same = new Date('2026-01-02T03:04:05.678Z');
    const companyIds = (await em.find(Company, {}, { limit: 2 })).map((r) => r._id);
    await em.nativeUpdate(Company, { _id: { $in: companyIds } }, { createdAt: same });
    const dealIds = (await em.find(Deal, {}, { limit: 2 })).map((r) => r._id);
    await em.nativeUpdate(Deal, { _id: { $in: dealIds } }, { createdAt: same });
  },
);

const ormPage = async (entity: typeof Company | typeof Deal, dir: 'asc' | 'desc', page: number, limit: number) => {
  const em = forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId);
  const [items, total] = await em.findAndCount(
    entity as typeof Company,
    {},
    {
      limit,
      offset: (page - 1) * limit,
      orderBy: [{ createdAt: dir }, { _id: dir }],
    },
  );
  const serialize = entity === Company ? serializeCompany : (serializeDeal as unknown as typeof serializeCompany);
  return { data: JSON.parse(JSON.stringify(items.map(serialize))) as unknown[], total };
};

describe('unfiltered lists (lean page read)', () => {
  it.each([
    ['companies', Company, 'desc', ''],
    ['deals', Deal, 'desc', ''],
    ['deals', Deal, 'asc', '&sortOrder=asc'],
  ] as const)('/%s %s: every page as the ORM reads it', async (path, entity, dir, extra) => {
    for (let page = 1; page <= 5; page++) {
      const res = await t.http.get(`/api/v1/${path}?page=${page}&limit=3${extra}`);
      expect(res.status).toBe(200);
      const expected = await ormPage(entity, dir, page, 3);
      expect(expected.total).toBeGreaterThanOrEqual(5);
      expect({ data: res.body.data, total: res.body.total }).toEqual(expected);
    }
    expect((await t.http.get(`/api/v1/${path}?page=9&limit=3${extra}`)).body).toMatchObject({ data: [] });
  });

  it('counts only the bound workspace and fails closed without one', async () => {
    const em = forkForWorkspace(app.runtime.deps.orm.em, t.workspaceId);
    const otherEm = forkForWorkspace(app.runtime.deps.orm.em, other.workspaceId);
    const mine = await findPageRows(em, Company, { prop: 'createdAt', dir: 'desc' }, { page: 1, limit: 100 });
    const theirs = await findPageRows(otherEm, Company, { prop: 'createdAt', dir: 'desc' }, { page: 1, limit: 100 });
    expect(mine.total).toBe(await em.count(Company, {}));
    expect(mine.items).toHaveLength(mine.total);
    const theirIds = new Set(theirs.items.map((c) => c._id));
    expect(theirIds.size).toBeGreaterThanOrEqual(5);
    expect(mine.items.filter((c) => theirIds.has(c._id))).toEqual([]);
    const past = await findPageRows(em, Company, { prop: 'createdAt', dir: 'desc' }, { page: 50, limit: 10 });
    expect(past).toEqual({ items: [], total: mine.total });
    await expect(
      findPageRows(app.runtime.deps.orm.em.fork(), Company, { prop: 'createdAt', dir: 'desc' }, { page: 1, limit: 1 }),
    ).rejects.toThrow(/no workspace bound/);
  });
});
