// GET /api/v1/sequences/:id reads its row without the ORM (findRowById) beside its enrollment counts:
// the answer must be what the ORM-loaded sequence serializes to, and another workspace's is a 404.
import type { Tenant, TestApp } from '../../../test/support/app';
import { ownerReadCtx, withTwoTenants } from '../../../test/support/two-tenants';
import { factories } from '../../../test/support/factories';
import { countsFor, getSequence, serializeSequence } from '../sequences.service';

let app: TestApp;
let t: Tenant;
let other: Tenant;
withTwoTenants((s) => ({ app, t, other } = s));
const ctxFor = (tenant: Tenant) => ownerReadCtx(app, tenant);

describe('GET /api/v1/sequences/:id (lean read)', () => {
  it('answers exactly what the ORM-loaded sequence and its counts serialize to', async () => {
    const enrollment = await factories['sequence-enrollment']!(t.http, { app } as never);
    const ctx = ctxFor(t);
    const [row] = await ctx.em
      .getConnection()
      .execute<{ sequence_id: string }[]>('select sequence_id from sequence_enrollment where id = ?', [enrollment]);
    const id = row!.sequence_id;
    const res = await t.http.get(`/api/v1/sequences/${id}`);
    expect(res.status).toBe(200);
    const viaOrm = serializeSequence(await getSequence(ctx, id), (await countsFor(ctx, [id])).get(id));
    expect(res.body).toEqual({ data: JSON.parse(JSON.stringify(viaOrm)) });
    expect(res.body.data.stats.totalEnrolled).toBe(1);
    expect(res.body.data.nodes.length).toBeGreaterThan(0);
  });

  it('404 for another workspace, unknown and malformed ids', async () => {
    const id = await factories.sequence!(t.http);
    expect((await t.http.get(`/api/v1/sequences/${id}`)).status).toBe(200);
    expect((await other.http.get(`/api/v1/sequences/${id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/sequences/${'0'.repeat(24)}`)).status).toBe(404);
    expect((await t.http.get('/api/v1/sequences/not-an-id')).status).toBe(404);
  });
});
