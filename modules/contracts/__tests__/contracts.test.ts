/**
 * Contracts and their signing envelope against the real services: the API, an in-process worker on
 * this file's task queue, a local SMTP server that receives the invitations (the only place a
 * signing link exists).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Contract, ContractSigner } from '../contract.entity';
import { newSignerToken } from '../tokens';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { contractEnvelopeKind } from '../contract-envelope.kind';
import { HttpClient, type Tenant } from '../../../test/support/app';
import { webhookDispatcher } from '../../../test/support/webhook-dispatcher';
import { waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { contractEvents, createContract, linksFor, RECORD, signerEmail, withContractStack } from './support';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { startReceiver } from '../../../test/support/webhooks';
import { expectError, expectOk } from '../../../test/support/expect';

let h: EngineHarness;
let smtp: LocalSmtp;
let t: Tenant;
let pub: HttpClient;

withContractStack((s) => ({ h, smtp, t, pub } = s), {
  tenant: 'Contracts',
  env: { CONTRACT_REMINDER_INTERVAL_MS: '1500' },
});

const em = () => h.app.runtime.deps.orm.em.fork();
const contractRow = (id: string) => em().findOne(Contract, { _id: id }, { filters: false });
const events = (id: string) => contractEvents(h, id);
const statusOf = async (id: string) => (await t.http.get(`/api/v1/contracts/${id}`)).body.data;
const waitStatus = (id: string, status: string, ms = 20_000) =>
  waitFor(async () => ((await contractRow(id))?.status === status ? statusOf(id) : null), ms, `contract ${status}`);
const waitLinks = (email: string, n = 1, p = '') =>
  waitFor(
    async () => {
      const l = await linksFor(smtp, email, p);
      return l.length >= n ? l : null;
    },
    20_000,
    `${n} link(s) for ${email}`,
  );
const send = (id: string, body: Record<string, unknown> = { reminderIntervalHours: null }) =>
  t.http.post(`/api/v1/contracts/${id}/send`, body);
/** A parallel contract whose deadline passes `ms` from now. */
const parallelWithDeadline = (ms: number) =>
  createContract(t.http, { mode: 'parallel', deadlineAt: new Date(Date.now() + ms).toISOString() });
const sign = (
  token: string,
  body: Record<string, unknown> = { typedName: 'Signed Name' },
  headers: Record<string, string> = {},
) =>
  pub.post(`/public/contracts/sign/${token}/sign`, body, { headers: { 'user-agent': 'jest-signer/1.0', ...headers } });
const workflowDone = (id: string) =>
  waitFor(
    async () => {
      const d = await h.client.workflow.getHandle(contractEnvelopeKind.workflowId(t.workspaceId, id)).describe();
      return d.status.name !== 'RUNNING' ? d.status.name : null;
    },
    15_000,
    'the envelope workflow to close',
  );

describe('create, read, list', () => {
  it('creates a draft with computed totals in minor units and per-signer progress', async () => {
    const res = await t.http.post('/api/v1/contracts', {
      title: 'Totals',
      signers: [
        { name: 'A', email: signerEmail('a'), role: 'signer' },
        { name: 'C', email: signerEmail('c'), role: 'cc' },
      ],
      lineItems: [
        { name: 'Hours', quantity: 3, unitPrice: 33.335, vatRate: 25 },
        { description: 'Licence', quantity: 0.1, unitPrice: 0.05, vatRate: 0 },
        { name: 'Default VAT', quantity: 2, unitPrice: 0.1 },
      ],
      contract: { startDate: '2027-01-01', endDate: '2027-12-31' },
      mode: 'parallel',
    });
    expect(res.status).toBe(201);
    const c = res.body.data;
    // 33.335 → 3334 minor (half away from zero); 3 × 3334 = 10002; VAT 25% = 2500.5 → 2501.
    expect(c.lineItems[0]).toMatchObject({ unitPrice: 33.34, subtotal: 100.02, vatAmount: 25.01, total: 125.03 });
    expect(c.lineItems[1]).toMatchObject({ unitPrice: 0.05, subtotal: 0.01, vatAmount: 0, total: 0.01 });
    expect(c.lineItems[2]).toMatchObject({ vatRate: 25, subtotal: 0.2, vatAmount: 0.05, total: 0.25 });
    expect(c).toMatchObject({
      status: 'draft',
      mode: 'parallel',
      signatureLevel: 'standard',
      subtotal: 100.23,
      vatAmount: 25.06,
      total: 125.29,
      contract: { startDate: '2027-01-01', endDate: '2027-12-31' },
      progress: { signed: 0, required: 1 },
    });
    expect(c.signers.map((s: any) => [s.order, s.role, s.status])).toEqual([
      [1, 'signer', 'pending'],
      [2, 'cc', 'pending'],
    ]);
    expect(JSON.stringify(c)).not.toMatch(/token/i);
    const list = await t.http.get('/api/v1/contracts?status=draft');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, limit: 20 });
    expect(list.body.data.map((x: any) => x._id)).toContain(c._id);
    expect((await t.http.get('/api/v1/contracts?status=accepted')).body.data.map((x: any) => x._id)).not.toContain(
      c._id,
    );
    expect((await t.http.get(`/api/v1/contracts/${c._id}`)).body.data._id).toBe(c._id);
  });

  const signer = { name: 'A', email: 'a@example.com' };
  it.each([
    ['no title', { signers: [signer] }, 'title'],
    ['no signers', { title: 'x' }, 'signers'],
    ['empty signers', { title: 'x', signers: [] }, 'signers'],
    ['only cc', { title: 'x', signers: [{ ...signer, role: 'cc' }] }, 'signers'],
    ['bad e-mail', { title: 'x', signers: [{ name: 'A', email: 'nope' }] }, 'signers.0.email'],
    ['bad role', { title: 'x', signers: [{ ...signer, role: 'witness' }] }, 'signers.0.role'],
    ['bad mode', { title: 'x', signers: [signer], mode: 'random' }, 'mode'],
    ['bad level', { title: 'x', signers: [signer], signatureLevel: 'qes' }, 'signatureLevel'],
    ['past deadline', { title: 'x', signers: [signer], deadlineAt: '2020-01-01T00:00:00Z' }, 'deadlineAt'],
    ['unknown company', { title: 'x', signers: [signer], companyRef: 'aaaaaaaaaaaaaaaaaaaaaaaa' }, 'companyRef'],
    [
      'unknown source offer',
      { title: 'x', signers: [signer], sourceOfferId: 'aaaaaaaaaaaaaaaaaaaaaaaa' },
      'sourceOfferId',
    ],
    ['unknown template', { title: 'x', signers: [signer], templateId: 'aaaaaaaaaaaaaaaaaaaaaaaa' }, 'templateId'],
    ['unknown deal', { title: 'x', signers: [signer], dealRef: 'aaaaaaaaaaaaaaaaaaaaaaaa' }, 'dealRef'],
    [
      'negative quantity',
      { title: 'x', signers: [signer], lineItems: [{ name: 'a', quantity: -1, unitPrice: 1 }] },
      'lineItems.0.quantity',
    ],
    [
      'vat over 100',
      { title: 'x', signers: [signer], lineItems: [{ name: 'a', quantity: 1, unitPrice: 1, vatRate: 101 }] },
      'lineItems.0.vatRate',
    ],
    [
      'nameless line',
      { title: 'x', signers: [signer], lineItems: [{ quantity: 1, unitPrice: 1 }] },
      'lineItems.0.name',
    ],
    [
      'end before start',
      { title: 'x', signers: [signer], contract: { startDate: '2027-02-01', endDate: '2027-01-01' } },
      'contract.endDate',
    ],
    [
      '21 signers',
      { title: 'x', signers: Array.from({ length: 21 }, (_, i) => ({ name: `S${i}`, email: `s${i}@example.com` })) },
      'signers',
    ],
    ['unknown field', { title: 'x', signers: [signer], status: 'accepted' }, 'body'],
    [
      'total beyond exact integers',
      { title: 'x', signers: [signer], lineItems: [{ name: 'a', quantity: 1_000_000, unitPrice: 1_000_000_000 }] },
      'lineItems',
    ],
  ])('400 for %s', async (_label, body, pathName) => {
    const res = await t.http.post('/api/v1/contracts', body);
    expectError(res, 400);
    if (pathName !== 'body') expect(res.body.details.map((d: any) => d.path)).toContain(pathName);
  });

  it('another workspace sees 404; unknown status filter is 400', async () => {
    const { id } = await createContract(t.http);
    const other = await h.app.tenant('Other');
    expect((await other.http.get(`/api/v1/contracts/${id}`)).status).toBe(404);
    expect((await other.http.post(`/api/v1/contracts/${id}/send`, {})).status).toBe(404);
    expect((await t.http.get('/api/v1/contracts?status=bogus')).status).toBe(400);
  });
});

describe('the signing envelope', () => {
  it('parallel: all invited at once, signatures complete it, cc gets the signed copy, tokens never leave the e-mails', async () => {
    const cc = signerEmail('cc');
    const { id, signers } = await createContract(t.http, {
      mode: 'parallel',
      signers: [
        { name: 'Ann', email: signerEmail('ann') },
        { name: 'Bo', email: signerEmail('bo'), phone: '+4512345678' },
        { name: 'Cy', email: cc, role: 'cc' },
      ],
    });
    const sent = await send(id);
    expectOk(sent, { status: 'sent', workflowId: `contract-envelope:${t.workspaceId}:${id}` });
    expect(sent.body.data.documentSha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await send(id)).status).toBe(409);
    const [a] = await waitLinks(signers[0]!.email);
    const [b] = await waitLinks(signers[1]!.email);
    expect(await linksFor(smtp, cc)).toHaveLength(0);
    await waitFor(
      async () => (await statusOf(id)).signers.filter((s: any) => s.status === 'invited').length === 2,
      10_000,
      'both invited',
    );

    const view = await pub.get(`/public/contracts/sign/${a}`, { headers: { accept: 'application/json' } });
    expectOk(view, { status: 'sent', signer: { name: 'Ann', status: 'viewed', canSign: true } });
    const html = await pub.get(`/public/contracts/sign/${a}`, { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(html.body).toContain('Ann');
    expect((await statusOf(id)).signers[0].status).toBe('viewed');

    const s1 = await sign(a!, { typedName: 'Ann A.' }, { 'x-forwarded-for': '203.0.113.7' });
    expectOk(s1, { status: 'signed', replayed: false });
    const again = await sign(a!, { typedName: 'Ann A.' });
    expect(again.status).toBe(200);
    expect(again.body.data.replayed).toBe(true);
    const png =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    expect((await sign(b!, { signatureImage: png })).status).toBe(200);

    const done = await waitStatus(id, 'accepted');
    expect(done.progress).toEqual({ signed: 2, required: 2 });
    expect(done.completedAt).toBeTruthy();
    const types = (await events(id)).map((e) => e.type);
    expect(types.filter((x) => x === 'contract_signed')).toHaveLength(2);
    expect(types.filter((x) => x === 'contract_completed')).toHaveLength(1);
    expect(types[0]).toBe('contract_sent');

    const pdf = await fetch(`${h.app.baseUrl}/api/v1/contracts/${id}/document`, {
      headers: { authorization: `Bearer ${t.apiKey}` },
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    const audit = (await t.http.get(`/api/v1/contracts/${id}/audit-trail`)).body.data;
    expect(audit.documentSha256).toBe(sent.body.data.documentSha256);
    expect(audit.signedPdfSha256).toBe(pdf.headers.get('x-document-sha256'));
    expect(audit.signers[0]).toMatchObject({
      status: 'signed',
      signatureType: 'typed',
      signatureName: 'Ann A.',
      userAgent: 'jest-signer/1.0',
    });
    expect(audit.signers[0].ip).toBeTruthy();
    expect(audit.signers[1]).toMatchObject({ signatureType: 'drawn' });

    // Everyone (cc included) gets the signed copy link; the old signing links are gone.
    const [copy] = await waitLinks(cc, 1, '/document');
    const copyPdf = await fetch(`${h.app.baseUrl}/public/contracts/sign/${copy}/document`);
    expect(copyPdf.status).toBe(200);
    expect(copyPdf.headers.get('content-type')).toBe('application/pdf');
    expect((await pub.get(`/public/contracts/sign/${copy}`)).status).toBe(410);
    expect(await workflowDone(id)).toBe('COMPLETED');

    // Privacy: no token and no token hash in any response or in the workflow history.
    const tokens = [a!, b!, copy!];
    const hashes = (await em().find(ContractSigner, { contractId: id }, { filters: false }))
      .map((s) => s.tokenHash)
      .filter(Boolean) as string[];
    const responses = JSON.stringify([
      sent.body,
      view.body,
      s1.body,
      (await t.http.get(`/api/v1/contracts/${id}`)).body,
      (await t.http.get('/api/v1/contracts')).body,
      audit,
    ]);
    const history = JSON.parse(
      historyToJSON(
        await h.client.workflow.getHandle(contractEnvelopeKind.workflowId(t.workspaceId, id)).fetchHistory(),
      ),
    );
    const decoded = await decodeAll(history);
    for (const secret of [...tokens, ...hashes]) {
      expect(responses).not.toContain(secret);
      expect(decoded).not.toContain(secret);
      expect(JSON.stringify(history)).not.toContain(secret);
    }
    expect(decoded).not.toContain(signers[0]!.email);
    if (RECORD)
      writeFileSync(
        path.join(__dirname, '../../../test/fixtures/contract-envelope.history.json'),
        JSON.stringify(history, null, 2),
      );
  }, 60_000);

  it('sequential: the next signer is invited only after the previous one signed; the wrong turn is 409', async () => {
    const { id, signers } = await createContract(t.http);
    expect((await send(id)).status).toBe(200);
    const [a] = await waitLinks(signers[0]!.email);
    await new Promise((r) => setTimeout(r, 800));
    expect(await linksFor(smtp, signers[1]!.email)).toHaveLength(0);
    // A link for the second signer before their turn (e.g. forwarded): refused.
    const early = newSignerToken();
    await forkForWorkspace(h.app.runtime.deps.orm.em, t.workspaceId).nativeUpdate(
      ContractSigner,
      { _id: signers[1]!._id },
      { tokenHash: early.hash },
    );
    const wrong = await sign(early.token);
    expectError(wrong, 409, /turn/);
    expect(
      (await pub.get(`/public/contracts/sign/${early.token}`, { headers: { accept: 'application/json' } })).body.data
        .signer.canSign,
    ).toBe(false);
    expect((await sign(a!)).status).toBe(200);
    const [b] = await waitLinks(signers[1]!.email);
    expect(b).not.toBe(early.token);
    expect((await sign(early.token)).status).toBe(404);
    expect((await sign(b!)).status).toBe(200);
    await waitStatus(id, 'accepted');
    // A repeated signature is answered as before (idempotent); the page itself is gone with the envelope.
    expect([200, 404]).toContain((await sign(b!)).status);
    expect([404, 410]).toContain((await pub.get(`/public/contracts/sign/${b}`)).status);
  }, 60_000);

  it('decline ends the envelope: declined, contract.declined, every link answers 410', async () => {
    const { id, signers } = await createContract(t.http, { mode: 'parallel' });
    await send(id);
    const [a] = await waitLinks(signers[0]!.email);
    const [b] = await waitLinks(signers[1]!.email);
    const res = await pub.post(`/public/contracts/sign/${a}/decline`, { reason: 'Price too high' });
    expect(res.status).toBe(200);
    const c = await waitStatus(id, 'declined');
    expect(c.signers[0]).toMatchObject({ status: 'declined', declineReason: 'Price too high' });
    expect((await sign(b!)).status).toBe(410);
    expect((await pub.get(`/public/contracts/sign/${b}`)).status).toBe(410);
    expect((await events(id)).map((e) => e.type)).toContain('contract_declined');
    expect(await workflowDone(id)).toBe('COMPLETED');
  }, 40_000);

  it('void: links stop working, signers are told, the workflow ends; 409 when not sent', async () => {
    const { id, signers } = await createContract(t.http, { mode: 'parallel' });
    expect((await t.http.post(`/api/v1/contracts/${id}/void`, {})).status).toBe(409);
    await send(id);
    const [a] = await waitLinks(signers[0]!.email);
    const res = await t.http.post(`/api/v1/contracts/${id}/void`, { reason: 'Wrong terms', notifySigners: true });
    expectOk(res, { status: 'voided', voidReason: 'Wrong terms' });
    expect((await sign(a!)).status).toBe(410);
    expect(await workflowDone(id)).toBe('COMPLETED');
    await waitFor(
      async () =>
        smtp.received.some((m) => m.to.includes(signers[0]!.email) && /Cancelled/.test(m.headers.subject ?? '')),
      10_000,
      'the void notice',
    );
    expect((await events(id)).map((e) => e.type)).toContain('contract_voided');
    expect((await t.http.post(`/api/v1/contracts/${id}/void`, {})).status).toBe(409);
  }, 40_000);

  it('deadlineAt passing expires the envelope (durable timer)', async () => {
    const { id, signers } = await parallelWithDeadline(3000);
    await send(id);
    const [a] = await waitLinks(signers[0]!.email);
    const c = await waitStatus(id, 'expired', 15_000);
    expect(c.expiredAt).toBeTruthy();
    expect((await sign(a!)).status).toBe(410);
    expect((await events(id)).map((e) => e.type)).toContain('contract_expired');
    expect(await workflowDone(id)).toBe('COMPLETED');
  }, 30_000);

  it('every signature before the deadline: accepted, never expired afterwards', async () => {
    const { id, signers } = await parallelWithDeadline(4000);
    await send(id);
    for (const s of signers) expect((await sign((await waitLinks(s.email))[0]!)).status).toBe(200);
    await waitStatus(id, 'accepted');
    await new Promise((r) => setTimeout(r, 4500));
    expect((await contractRow(id))!.status).toBe('accepted');
    expect((await events(id)).map((e) => e.type)).not.toContain('contract_expired');
  }, 30_000);

  it('reminders on a timer re-send a fresh link to signers who have not signed', async () => {
    const { id, signers } = await createContract(t.http, { mode: 'parallel' });
    expect((await send(id, {})).status).toBe(200);
    const [first] = await waitLinks(signers[0]!.email);
    expect((await sign(first!)).status).toBe(200);
    const links = await waitLinks(signers[1]!.email, 3);
    expect(new Set(links).size).toBe(links.length);
    // Only the newest link works; the signer who signed is not reminded.
    expect(await linksFor(smtp, signers[0]!.email)).toHaveLength(1);
    const c = await statusOf(id);
    expect(c.signers[1].remindersSent).toBeGreaterThanOrEqual(2);
    expect(c.reminderIntervalHours).toBeGreaterThan(0);
    const latest = (await linksFor(smtp, signers[1]!.email)).at(-1)!;
    expect((await sign(links[0]!)).status).toBe(404);
    expect((await sign(latest)).status).toBe(200);
    await waitStatus(id, 'accepted');
  }, 40_000);

  it('public input is checked: unknown token 404, bad image 400, image over 2 MB 413, nothing to sign 400', async () => {
    expect((await pub.get('/public/contracts/sign/not-a-token')).status).toBe(404);
    expect((await sign('A'.repeat(43))).status).toBe(404);
    const { id, signers } = await createContract(t.http, { mode: 'parallel' });
    await send(id);
    const [a] = await waitLinks(signers[0]!.email);
    expect((await sign(a!, {})).status).toBe(400);
    expect((await sign(a!, { signatureImage: 'data:image/jpeg;base64,AAAA' })).status).toBe(400);
    expect(
      (
        await sign(a!, {
          signatureImage: `data:image/png;base64,${Buffer.from('not a png at all, really not a png').toString('base64')}`,
        })
      ).status,
    ).toBe(400);
    const big = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.alloc(2 * 1024 * 1024),
    ]);
    expect(
      (await sign(a!, { signatureImage: `data:image/png;base64,${big.toString('base64')}` })).status,
    ).toBeGreaterThanOrEqual(400);
    expect((await sign(a!, { typedName: 'x'.repeat(201) })).status).toBe(400);
    expect((await sign(a!, { typedName: 'A', extra: 1 })).status).toBe(400);
    await t.http.post(`/api/v1/contracts/${id}/void`, {});
  }, 30_000);

  it('webhook subscriptions receive contract.sent, contract.signed and contract.completed, without any link', async () => {
    const w = await h.app.tenant('Contract webhooks');
    const receiver = await startReceiver();
    const sub = await w.http.post('/api/v1/webhooks/subscriptions', {
      url: receiver.url,
      events: ['contract.sent', 'contract.signed', 'contract.completed', 'contract.voided'],
    });
    expect(sub.status).toBe(201);
    receiver.secrets = [sub.body.data.secret];
    const dispatcher = webhookDispatcher(h.app, [w.workspaceId], { pollIntervalMs: 100 });
    await dispatcher.start();
    try {
      const { id, signers } = await createContract(w.http, { mode: 'parallel' });
      expect((await w.http.post(`/api/v1/contracts/${id}/send`, { reminderIntervalHours: null })).status).toBe(200);
      const tokens = await Promise.all(signers.map(async (s) => (await waitLinks(s.email))[0]!));
      for (const token of tokens) expect((await sign(token)).status).toBe(200);
      await waitFor(async () => (await contractRow(id))?.status === 'accepted', 20_000, 'accepted');
      await waitFor(async () => receiver.received.length >= 4, 20_000, '4 deliveries');
      const types = receiver.received.map((r) => JSON.parse(r.body).type);
      expect(types.sort()).toEqual(['contract.completed', 'contract.sent', 'contract.signed', 'contract.signed']);
      expect(receiver.received.every((r) => r.verified)).toBe(true);
      for (const token of tokens) expect(receiver.received.map((r) => r.body).join('\n')).not.toContain(token);
    } finally {
      await dispatcher.stop();
      await receiver.close();
    }
  }, 60_000);

  it('eid without a provider: 503 not_configured naming EID_PROVIDER_URL; the contract stays draft', async () => {
    const { id } = await createContract(t.http, { signatureLevel: 'eid' });
    const res = await send(id);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'not_configured' });
    expect(res.body.error).toContain('EID_PROVIDER_URL');
    expect((await statusOf(id)).status).toBe('draft');
  });
});

/** Every payload of a history decoded to text (through the codec when payloads are encrypted). */
async function decodeAll(history: unknown): Promise<string> {
  const { crmDataConverter } = await import('../../../platform/temporal/codec');
  const conv = crmDataConverter(h.app.config.temporalCodec.payloadKeys);
  const out: string[] = [];
  const walk = async (node: unknown): Promise<void> => {
    if (Array.isArray(node)) for (const v of node) await walk(v);
    else if (node && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o.metadata && typeof o.metadata === 'object' && 'encoding' in (o.metadata as object)) {
        const toBytes = (s: unknown) => (typeof s === 'string' ? Buffer.from(s, 'base64') : new Uint8Array());
        const payload = {
          metadata: Object.fromEntries(
            Object.entries(o.metadata as Record<string, string>).map(([k, v]) => [k, toBytes(v)]),
          ),
          data: toBytes(o.data),
        };
        let decoded = [payload];
        for (const codec of [...(conv?.payloadCodecs ?? [])].reverse())
          decoded = (await codec.decode(decoded)) as typeof decoded;
        out.push(Buffer.from(decoded[0]!.data ?? new Uint8Array()).toString('utf8'));
      } else for (const v of Object.values(o)) await walk(v);
    }
  };
  await walk(history);
  return out.join('\n');
}
