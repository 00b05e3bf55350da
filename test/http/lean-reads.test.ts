// GET /…/:id of people, leads, deals, tasks, offers and contracts read their rows without the ORM
// (findRowById in domain/orm/lean.ts): each answer must be exactly what the ORM-loaded entity
// serializes to, including timestamps with microseconds, bigint money and a contract's signers.
import type { Tenant, TestApp } from '../support/app';
import { ownerReadCtx, withTwoTenants } from '../support/two-tenants';
import { factories, makeLead, makePerson } from '../support/factories';
import { createContract, signerEmail } from '../../modules/contracts/__tests__/support';
import { getPerson, serializePerson } from '../../modules/people/people.service';
import { getLead, serializeLead } from '../../modules/leads/leads.service';
import { getDeal, serializeDeal } from '../../modules/deals/deals.service';
import { getTask, serializeTask } from '../../modules/tasks/tasks.service';
import { getOffer, serializeOffer } from '../../modules/offers/offers.service';
import { getContractView } from '../../modules/contracts/contracts.service';
import { Contract } from '../../modules/contracts/contract.entity';
import { Offer } from '../../modules/offers/offer.entity';
import { findRowById } from '../../platform/orm/lean-rows';

let app: TestApp;
let t: Tenant;
let other: Tenant;
withTwoTenants((s) => ({ app, t, other } = s));
const ctxFor = (tenant: Tenant) => ownerReadCtx(app, tenant);
const sql = (text: string, values: unknown[]) => app.runtime.deps.orm.em.getConnection().execute(text, values);
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));
const links = () => ({ publicBaseUrl: app.runtime.deps.config.publicBaseUrl });

async function expectSame(
  path: string,
  viaOrm: () => Promise<unknown>,
  otherPath = path,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<Record<string, any>> {
  const res = await t.http.get(path);
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ data: plain(await viaOrm()) });
  expect((await other.http.get(otherPath)).status).toBe(404);
  return res.body.data;
}

describe('lean by-id reads equal the ORM serialization', () => {
  it('person, lead, deal, task (a timestamp with microseconds set on each)', async () => {
    const person = (await makePerson(t.http, { email: `p-${Date.now()}@x.test`, tags: ['a'] })).body.data._id as string;
    const lead = (await makeLead(t.http, { tags: ['b'], customFields: [{ name: 'n', value: 1 }] })).body.data
      ._id as string;
    const deal = await factories.deal!(t.http);
    const task = await factories.task!(t.http);
    for (const [table, id] of [
      ['person', person],
      ['lead', lead],
      ['deal', deal],
      ['task', task],
    ] as const)
      await sql(`update "${table}" set updated_at = '2026-05-01 10:11:12.345678+00' where id = ?`, [id]);
    const ctx = ctxFor(t);
    ctx.em.clear();
    const p = await expectSame(`/api/v1/people/${person}`, async () => serializePerson(await getPerson(ctx, person)));
    expect(p.updatedAt).toBe('2026-05-01T10:11:12.345Z');
    await expectSame(`/api/v1/leads/${lead}`, async () => serializeLead(await getLead(ctx, lead)));
    await expectSame(`/api/v1/deals/${deal}`, async () => serializeDeal(await getDeal(ctx, deal)));
    const tk = await expectSame(`/api/v1/tasks/${task}`, async () => serializeTask(await getTask(ctx, task)));
    expect(tk.tags).toEqual(['todo']);
  });

  it('offer by _id and by publicId: bigint money as numbers, dates, response; 404 elsewhere', async () => {
    const res = await t.http.post('/api/v1/offers', {
      title: 'Lean offer',
      lineItems: [{ name: 'Work', quantity: 3, unitPrice: 1234.56, vatRate: 25 }],
    });
    expect(res.status).toBe(201);
    const id = res.body.data._id as string;
    const publicId = `pub-${id}`;
    // A total above 2^32 (bigint column) and a sent offer's timestamps, as the ORM would read them.
    await sql(
      `update offers set public_id = ?, total_minor = 900000000123, sent_at = '2026-05-01 08:00:00.123456+00',
        status = 'sent', valid_until = '2099-01-01', view_count = 2,
        response = '{"decision":"accepted","name":"Ann","email":null,"comment":null,"at":"2026-05-02T10:00:00.000Z","ip":null,"userAgent":null}'
       where id = ?`,
      [publicId, id],
    );
    const ctx = ctxFor(t);
    const viaOrm = async () => serializeOffer(await getOffer(ctx, id), links());
    const body = await expectSame(`/api/v1/offers/${id}`, viaOrm);
    expect(body).toMatchObject({ total: 9000000001.23, subtotal: 3703.68, sentAt: '2026-05-01T08:00:00.123Z' });
    expect(typeof body.total).toBe('number');
    ctx.em.clear();
    expect((await t.http.get(`/api/v1/offers/${publicId}`)).body).toEqual({
      data: plain(serializeOffer(await getOffer(ctx, publicId), links())),
    });
    expect((await other.http.get(`/api/v1/offers/${publicId}`)).status).toBe(404);
    // kind is part of the lookup: a contract-kind row of the offers table is not an offer.
    await sql(`update offers set kind = 'contract' where id = ?`, [id]);
    expect((await t.http.get(`/api/v1/offers/${id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/offers/${publicId}`)).status).toBe(404);
    expect((await t.http.get('/api/v1/offers/not-an-id')).status).toBe(404);
    await expect(findRowById(app.runtime.deps.orm.em.fork(), Offer, id)).rejects.toThrow(/no workspace bound/);
  });

  it('contract with its signers in order (dates, bigint reminder interval); none, and fail-closed', async () => {
    const { id, signers } = await createContract(t.http, {
      mode: 'parallel',
      signers: [
        { name: 'Cy', email: signerEmail('cy'), role: 'signer' },
        { name: 'Ann', email: signerEmail('ann'), role: 'signer' },
        { name: 'Cc', email: signerEmail('cc'), role: 'cc' },
      ],
      lineItems: [{ name: 'Hours', quantity: 2, unitPrice: 33.335, vatRate: 25 }],
      contract: { startDate: '2027-01-01', endDate: '2027-12-31' },
    });
    await sql(`update contracts set reminder_interval_ms = 7200000, sent_at = now(), status = 'sent' where id = ?`, [
      id,
    ]);
    await sql(
      `update contract_signers set status = 'signed', viewed_at = '2026-05-01 09:00:00.5+00',
        signed_at = '2026-05-01 09:05:00.999999+00', signature_name = 'Ann' where id = ?`,
      [signers[1]!._id],
    );
    const body = await expectSame(`/api/v1/contracts/${id}`, () => getContractView(ctxFor(t), id));
    expect(body.signers.map((s: { name: string }) => s.name)).toEqual(['Cy', 'Ann', 'Cc']);
    expect(body.signers[1]).toMatchObject({ status: 'signed', signedAt: '2026-05-01T09:05:00.999Z' });
    expect(body).toMatchObject({ reminderIntervalHours: 2, progress: { signed: 1, required: 2 } });

    // No signers: an empty list, as the ORM's find gives.
    await sql(`delete from contract_signers where contract_id = ?`, [id]);
    await expectSame(`/api/v1/contracts/${id}`, () => getContractView(ctxFor(t), id));
    expect((await t.http.get(`/api/v1/contracts/${'0'.repeat(24)}`)).status).toBe(404);
    expect(await findRowById(ctxFor(other).em, Contract, id)).toBeNull();
    await expect(findRowById(app.runtime.deps.orm.em.fork(), Contract, id)).rejects.toThrow(/no workspace bound/);
  });
});
