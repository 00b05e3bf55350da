// GET /api/v1/companies/:id reads its row without the ORM (domain/orm/lean.ts): the answer must be
// exactly what the ORM-loaded entity serializes to, and the workspace must always be in the SQL.
import type { Tenant, TestApp } from '../../../test/support/app';
import { ownerReadCtx, withTwoTenants } from '../../../test/support/two-tenants';
import { makeCompany } from '../../../test/support/factories';
import { companyDetails } from './fixtures';
import { getCompany, serializeCompany } from '../companies.service';
import { Company } from '../company.entity';
import { leanQuery } from '../../../platform/orm/lean';
import { findRowById } from '../../../platform/orm/lean-rows';

let app: TestApp;
let t: Tenant;
let other: Tenant;
withTwoTenants((s) => ({ app, t, other } = s));
const ctxFor = (tenant: Tenant) => ownerReadCtx(app, tenant);

describe('GET /api/v1/companies/:id (lean read)', () => {
  it('answers exactly what the ORM-loaded company serializes to, every field set', async () => {
    const created = await makeCompany(t.http, {
      ...companyDetails,
      email: 'info@acme.dk',
      customFields: [
        { name: 'segment', value: 'SMB' },
        { name: 'seats', value: 5 },
        { name: 'flags', value: ['a', 'b'] },
      ],
      tags: ['vip', 'lead'],
      profileUrl: 'https://www.linkedin.com/company/acme',
    });
    expect(created.status).toBe(201);
    const id = created.body.data._id as string;
    const res = await t.http.get(`/api/v1/companies/${id}`);
    expect(res.status).toBe(200);
    const viaOrm = JSON.parse(JSON.stringify(serializeCompany(await getCompany(ctxFor(t), id))));
    expect(res.body).toEqual({ data: viaOrm });
    expect(res.body.data).toMatchObject({ employees: 42, tags: ['vip', 'lead'], avatar: null });
    expect(typeof res.body.data.createdAt).toBe('string');
  });

  it('keeps fields= projection and 404 for another workspace, unknown and malformed ids', async () => {
    const id = (await makeCompany(t.http, { city: 'Odense' })).body.data._id as string;
    const projected = await t.http.get(`/api/v1/companies/${id}?fields=city`);
    expect(projected.body).toEqual({ data: { _id: id, city: 'Odense' } });
    expect((await other.http.get(`/api/v1/companies/${id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/companies/${'0'.repeat(24)}`)).status).toBe(404);
    expect((await t.http.get('/api/v1/companies/not-an-id')).status).toBe(404);
  });

  it('fails closed: the workspace is in the statement, and an unbound EM throws', async () => {
    const id = (await makeCompany(t.http)).body.data._id as string;
    expect(await findRowById(ctxFor(other).em, Company, id)).toBeNull();
    expect(((await findRowById(ctxFor(t).em, Company, id)) as { _id: string })._id).toBe(id);
    await expect(findRowById(app.runtime.deps.orm.em.fork(), Company, id)).rejects.toThrow(/no workspace bound/);
  });

  it('runs on the transaction connection inside a transaction (sees its uncommitted row)', async () => {
    const em = ctxFor(t).em;
    await em
      .transactional(async (tx) => {
        await tx.getConnection().execute(
          `insert into company (id, workspace_id, created_at, updated_at, name, custom_fields, tags)
         values ('${'a'.repeat(24)}', ?, now(), now(), 'Uncommitted', '[]', '{}')`,
          [t.workspaceId],
          'run',
          tx.getTransactionContext(),
        );
        const row = await findRowById(tx, Company, 'a'.repeat(24));
        expect(row?.name).toBe('Uncommitted');
        expect(await leanQuery(tx, 'select $1::int as a, $2::text as b', [1, 'x'])).toEqual([{ a: 1, b: 'x' }]);
        // Values go as bind parameters, not escaped into the SQL text: an untyped parameter is text to Postgres,
        // where the number written into the statement would be an integer. Undefined is null.
        expect(
          await leanQuery(
            tx,
            'select pg_typeof(v)::text as t, s, n from (select $1 as v, $2::text as s, $3::text as n) x',
            [7, "it's ? $1", undefined],
          ),
        ).toEqual([{ t: 'text', s: "it's ? $1", n: null }]);
        throw new Error('rollback');
      })
      .catch((err: Error) => expect(err.message).toBe('rollback'));
    expect(await findRowById(ctxFor(t).em, Company, 'a'.repeat(24))).toBeNull();
  });
});
