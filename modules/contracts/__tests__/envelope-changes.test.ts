/**
 * Issue 28 part 3: changes to a sent envelope against the real services (API, an in-process worker,
 * a local SMTP server that receives the links). A corrected signer's old link is refused and the new
 * one works; a correction after the signer opened the link is 409; a resend is limited to one per 10
 * minutes per signer (429 with Retry-After, checked at the boundary); an extension moves the
 * workflow's deadline timer (not expired at the old time, expired at the new one).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { Contract, ContractSigner } from '../contract.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import type { Ctx } from '../../../platform/context';
import { DomainError } from '../../../platform/errors';
import { contractEnvelopeKind } from '../contract-envelope.kind';
import { envelopeDeadlineQuery } from '../contract-envelope.messages';
import { checkExtension, MAX_EXTEND_DAYS, RESEND_INTERVAL_MS, resendInvitation } from '../envelope-changes.service';
import { inviteSigners } from '../envelope.service';
import type { EmailTransport } from '../../../platform/ports/messaging.port';
import { HttpClient, type Tenant } from '../../../test/support/app';
import {
  action,
  chainGraph,
  createAutomation,
  waitFor,
  type EngineHarness,
} from '../../../test/support/automation-engine';
import { contractEvents, createContract, linksFor, RECORD, signerEmail, withContractStack } from './support';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { expectError } from '../../../test/support/expect';
import { webhookTypeOf } from '../../webhooks/event-types';

jest.setTimeout(60_000);
let h: EngineHarness;
let smtp: LocalSmtp;
let t: Tenant;
let pub: HttpClient;
// RECORD_CONTRACT_FIXTURE=1 (RECORD) writes the extension's history as a replay fixture.
withContractStack((s) => ({ h, smtp, t, pub } = s), { tenant: 'Contract changes' });

const em = () => h.app.runtime.deps.orm.em.fork();
const contractRow = (id: string) => em().findOne(Contract, { _id: id }, { filters: false });
const signerRow = (id: string) => em().findOne(ContractSigner, { _id: id }, { filters: false });
const events = (id: string) => contractEvents(h, id);
const statusOf = async (id: string) => (await t.http.get(`/api/v1/contracts/${id}`)).body.data;
const waitLinks = (email: string, n = 1) =>
  waitFor(
    async () => {
      const l = await linksFor(smtp, email);
      return l.length >= n ? l : null;
    },
    20_000,
    `${n} link(s) for ${email}`,
  );
const send = (id: string, body: Record<string, unknown> = { reminderIntervalHours: null }) =>
  t.http.post(`/api/v1/contracts/${id}/send`, body);
const sign = (token: string) => pub.post(`/public/contracts/sign/${token}/sign`, { typedName: 'Signed Name' });
const view = (token: string) => pub.get(`/public/contracts/sign/${token}`, { headers: { accept: 'application/json' } });
const patchSigner = (id: string, signerId: string, body: unknown) =>
  t.http.request('PATCH', `/api/v1/contracts/${id}/signers/${signerId}`, body);
const resend = (id: string, signerId: string, headers: Record<string, string> = {}) =>
  t.http.post(`/api/v1/contracts/${id}/signers/${signerId}/resend`, undefined, { headers });
const extend = (id: string, body: unknown) => t.http.post(`/api/v1/contracts/${id}/extend`, body);
const waitInvited = (id: string, signerId: string) =>
  waitFor(
    async () => {
      const s = (await statusOf(id)).signers.find((x: any) => x._id === signerId);
      return s?.invitation.status === 'sent' ? s : null;
    },
    20_000,
    `signer ${signerId} invited`,
  );

describe('correct a signer after sending', () => {
  it('the old link is refused at once, the corrected address gets a new link that works; the hash follows', async () => {
    const { id, signers } = await createContract(t.http, { mode: 'parallel' });
    const sent = await send(id);
    expect(sent.status).toBe(200);
    const [old] = await waitLinks(signers[0]!.email);
    await waitInvited(id, signers[0]!._id);

    const fixed = signerEmail('ann-fixed');
    const res = await patchSigner(id, signers[0]!._id, { email: fixed.toUpperCase(), name: 'Ann Fixed' });
    expect(res.status).toBe(200);
    const s = res.body.data.signers[0];
    expect(s).toMatchObject({ _id: signers[0]!._id, email: fixed, name: 'Ann Fixed', invitedAt: null });
    expect(s.correctedAt).toBeTruthy();
    expect(['queued', 'sent']).toContain(s.invitation.status);
    expect(res.body.data.documentSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.data.documentSha256).not.toBe(sent.body.data.documentSha256);

    // The old link no longer works, for viewing or signing.
    expect((await view(old!)).status).toBe(404);
    expect((await sign(old!)).status).toBe(404);

    const [fresh] = await waitLinks(fixed);
    expect(fresh).not.toBe(old);
    const seen = await view(fresh!);
    expect(seen.status).toBe(200);
    expect(seen.body.data.signer).toMatchObject({ name: 'Ann Fixed', canSign: true });
    expect(seen.body.data.documentSha256).toBe(res.body.data.documentSha256);
    expect((await sign(fresh!)).status).toBe(200);
    // The wrong address got the first invitation only.
    expect(await linksFor(smtp, signers[0]!.email)).toHaveLength(1);
    expect((await statusOf(id)).signers[0].status).toBe('signed');

    const corrected = (await events(id)).filter((e) => e.type === 'contract_signer_corrected');
    expect(corrected).toHaveLength(1);
    expect(corrected[0]!.payload).toMatchObject({
      contractId: id,
      signerId: signers[0]!._id,
      signerName: 'Ann Fixed',
      fields: ['name', 'email'],
      reinvited: true,
    });
    expect(webhookTypeOf('contract_signer_corrected')).toBe('contract.signer_corrected');
    const audit = (await t.http.get(`/api/v1/contracts/${id}/audit-trail`)).body.data;
    expect(audit.signers[0].correctedAt).toBeTruthy();
    expect(audit.documentSha256).toBe(res.body.data.documentSha256);
  });

  it('sequential: a signer not due yet is corrected without an invitation; it goes to the new address on their turn', async () => {
    const { id, signers } = await createContract(t.http);
    await send(id);
    const [a] = await waitLinks(signers[0]!.email);
    const fixed = signerEmail('bo-fixed');
    const res = await patchSigner(id, signers[1]!._id, { email: fixed, phone: '+45 1234 5678' });
    expect(res.status).toBe(200);
    expect(res.body.data.signers[1]).toMatchObject({ email: fixed, phone: '+45 1234 5678', status: 'pending' });
    expect(res.body.data.signers[1].invitation.status).toBeNull();
    const payload = (await events(id)).find((e) => e.type === 'contract_signer_corrected')!.payload;
    expect(payload).toMatchObject({ fields: ['email', 'phone'], reinvited: false });
    expect((await sign(a!)).status).toBe(200);
    const [b] = await waitLinks(fixed);
    expect(await linksFor(smtp, signers[1]!.email)).toHaveLength(0);
    expect((await sign(b!)).status).toBe(200);
    await waitFor(async () => (await contractRow(id))?.status === 'accepted', 20_000, 'accepted');
  });

  it('409 invalid_state once the signer opened the link or signed, or unless the contract is sent', async () => {
    const { id, signers } = await createContract(t.http, { mode: 'parallel' });
    // Draft: not sent yet (the contract itself can still be changed).
    expectError(await patchSigner(id, signers[0]!._id, { name: 'X' }), 409);
    await send(id);
    const [a] = await waitLinks(signers[0]!.email);
    const [b] = await waitLinks(signers[1]!.email);
    expect((await view(a!)).status).toBe(200);
    const opened = await patchSigner(id, signers[0]!._id, { email: signerEmail('late') });
    expectError(opened, 409);
    expect(opened.body.code).toBe('invalid_state');
    expect(opened.body.error).toMatch(/opened/);
    expect((await sign(b!)).status).toBe(200);
    expectError(await patchSigner(id, signers[1]!._id, { name: 'Late' }), 409, /signed/);
    // Nothing changed: both links still belong to their signers.
    expect((await signerRow(signers[0]!._id))!.email).toBe(signers[0]!.email);
    expect((await view(a!)).status).toBe(200);
    await t.http.post(`/api/v1/contracts/${id}/void`, {});
    expectError(await patchSigner(id, signers[0]!._id, { name: 'Voided' }), 409);
  });

  it('a correction committed while the invitation to the old address is being sent wins: that link is dead, the signer stays queued', async () => {
    const { id, signers } = await createContract(t.http, {
      mode: 'parallel',
      signers: [{ name: 'Ann', email: signerEmail('ann') }],
    });
    const signerId = signers[0]!._id;
    // Sent without a workflow (this test drives the activity itself): the invitation is due, queued.
    const wem = forkForWorkspace(h.app.runtime.deps.orm.em, t.workspaceId);
    await wem.nativeUpdate(Contract, { _id: id }, { status: 'sent', channels: { email: true, sms: false } });
    await wem.nativeUpdate(ContractSigner, { _id: signerId }, { invitationStatus: 'queued' });
    const fixed = signerEmail('ann-fixed');
    const real = h.messaging!.transport;
    // The correction lands while the message to the old address is on its way.
    const racing: EmailTransport = {
      defaultFrom: real.defaultFrom,
      send: async (message) => {
        expect((await patchSigner(id, signerId, { email: fixed })).status).toBe(200);
        return real.send(message);
      },
    };
    const deps = {
      orm: h.app.runtime.deps.orm,
      transport: racing,
      gateway: h.messaging!.gateway,
      publicBaseUrl: h.app.config.publicBaseUrl,
      log: h.app.runtime.deps.log,
    };
    expect(await inviteSigners(deps, { workspaceId: t.workspaceId, contractId: id, signerIds: [signerId] })).toEqual({
      invited: 0,
    });
    const [stale] = await waitLinks(signers[0]!.email);
    expect((await view(stale!)).status).toBe(404);
    const row = (await signerRow(signerId))!;
    expect(row).toMatchObject({ email: fixed, invitedAt: null, status: 'pending', invitationStatus: 'queued' });
    expect(row.tokenHash).toBeNull();
    // The next run (the workflow's re-read after the correction's signal) invites the new address.
    const normal = { ...deps, transport: real };
    expect(await inviteSigners(normal, { workspaceId: t.workspaceId, contractId: id, signerIds: [signerId] })).toEqual({
      invited: 1,
    });
    const [fresh] = await waitLinks(fixed);
    expect((await view(fresh!)).status).toBe(200);
  });

  it.each([
    ['empty body', {}, 'name'],
    ['bad e-mail', { email: 'nope' }, 'email'],
    ['empty name', { name: ' ' }, 'name'],
    ['name too long', { name: 'x'.repeat(201) }, 'name'],
    ['bad phone', { phone: 'call me' }, 'phone'],
  ])('400 for %s', async (_label, body, field) => {
    const { id, signers } = await createContract(t.http);
    const res = await patchSigner(id, signers[0]!._id, body);
    expectError(res, 400);
    expect(res.body.details.map((d: any) => d.path)).toContain(field);
  });

  it("another contract's signer, an unknown signer and another workspace are 404", async () => {
    const one = await createContract(t.http);
    const two = await createContract(t.http);
    expect((await patchSigner(one.id, two.signers[0]!._id, { name: 'X' })).status).toBe(404);
    expect((await patchSigner(one.id, 'aaaaaaaaaaaaaaaaaaaaaaaa', { name: 'X' })).status).toBe(404);
    expect((await patchSigner(one.id, 'not-an-id', { name: 'X' })).status).toBe(404);
    const other = await h.app.tenant('Contract changes other');
    for (const res of [
      await other.http.request('PATCH', `/api/v1/contracts/${one.id}/signers/${one.signers[0]!._id}`, { name: 'X' }),
      await other.http.post(`/api/v1/contracts/${one.id}/signers/${one.signers[0]!._id}/resend`),
      await other.http.post(`/api/v1/contracts/${one.id}/extend`, { expiresAt: '2031-01-01T00:00:00Z' }),
    ])
      expectError(res, 404);
  });
});

describe('resend an invitation', () => {
  it('sends a fresh link (the old one stops working); a second resend within 10 minutes is 429 with Retry-After', async () => {
    const { id, signers } = await createContract(t.http, {
      mode: 'parallel',
      signers: [
        { name: 'Ann', email: signerEmail('ann') },
        { name: 'Cy', email: signerEmail('cc'), role: 'cc' },
      ],
    });
    await send(id);
    const [first] = await waitLinks(signers[0]!.email);
    const invited = await waitInvited(id, signers[0]!._id);

    const res = await resend(id, signers[0]!._id, { 'idempotency-key': `resend-${id}` });
    expect(res.status).toBe(200);
    expect(res.body.data.signers[0].resendRequestedAt).toBeTruthy();
    // The same request again (a client retry) is answered from the first one, not rate limited.
    const replay = await resend(id, signers[0]!._id, { 'idempotency-key': `resend-${id}` });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const [, second] = await waitLinks(signers[0]!.email, 2);
    expect(second).not.toBe(first);
    expect((await sign(first!)).status).toBe(404);
    const s = await waitInvited(id, signers[0]!._id);
    expect(s.invitedAt).toBe(invited.invitedAt);
    expect(s.invitation.attempts).toBe(2);

    const limited = await resend(id, signers[0]!._id);
    expectError(limited, 429);
    expect(limited.body.code).toBe('rate_limited');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);
    await new Promise((r) => setTimeout(r, 500));
    expect(await linksFor(smtp, signers[0]!.email)).toHaveLength(2);

    expect((await sign(second!)).status).toBe(200);
    await waitFor(async () => (await contractRow(id))?.status === 'accepted', 20_000, 'accepted');
    const resent = (await events(id)).filter((e) => e.type === 'contract_invitation_resent');
    expect(resent).toHaveLength(1);
    expect(resent[0]!.payload).toMatchObject({ signerId: signers[0]!._id, signerName: 'Ann' });
    expect(webhookTypeOf('contract_invitation_resent')).toBe('contract.invitation_resent');
  });

  it('the 10-minute limit at its boundary: one millisecond before is refused, at 10 minutes it is accepted', async () => {
    const { id, signers } = await createContract(t.http, { mode: 'parallel' });
    await send(id);
    await waitInvited(id, signers[0]!._id);
    expect((await resend(id, signers[0]!._id)).status).toBe(200);
    const at = (await signerRow(signers[0]!._id))!.resendRequestedAt!;
    const ctx: Ctx = {
      em: forkForWorkspace(h.app.runtime.deps.orm.em, t.workspaceId),
      actor: { workspaceId: t.workspaceId, userId: (await contractRow(id))!.createdBy, role: 'owner', scopes: [] },
    };
    const deps = { workflows: h.workflows, log: h.app.runtime.deps.log };
    const early = await resendInvitation(
      ctx,
      id,
      signers[0]!._id,
      deps,
      new Date(at.getTime() + RESEND_INTERVAL_MS - 1),
    )
      .then(() => null)
      .catch((err: unknown) => err);
    expect(early).toBeInstanceOf(DomainError);
    expect(early).toMatchObject({ code: 'rate_limited', headers: { 'Retry-After': '1' } });
    const on = await resendInvitation(ctx, id, signers[0]!._id, deps, new Date(at.getTime() + RESEND_INTERVAL_MS));
    expect(on.signers[0]!.resendRequestedAt).toBe(new Date(at.getTime() + RESEND_INTERVAL_MS).toISOString());
    await t.http.post(`/api/v1/contracts/${id}/void`, {});
  });

  it('409 for a cc, a signer not invited yet, a signer who signed, a contract not sent', async () => {
    const cc = signerEmail('cc');
    const { id, signers } = await createContract(t.http, {
      signers: [
        { name: 'Ann', email: signerEmail('ann') },
        { name: 'Bo', email: signerEmail('bo') },
        { name: 'Cy', email: cc, role: 'cc' },
      ],
    });
    expectError(await resend(id, signers[0]!._id), 409);
    await send(id);
    const [a] = await waitLinks(signers[0]!.email);
    expectError(await resend(id, signers[1]!._id), 409, /not due/);
    expectError(await resend(id, signers[2]!._id), 409, /cc/);
    expect((await sign(a!)).status).toBe(200);
    expectError(await resend(id, signers[0]!._id), 409, /signed/);
    expect((await resend(id, 'aaaaaaaaaaaaaaaaaaaaaaaa')).status).toBe(404);
    await t.http.post(`/api/v1/contracts/${id}/void`, {});
  });
});

describe('extend the deadline', () => {
  it('moves the workflow deadline timer: not expired at the old time, expired at the new one', async () => {
    // Room for a cold worker to start the workflow before the old deadline.
    const oldDeadline = Date.now() + 12_000;
    const { id, signers } = await createContract(t.http, {
      mode: 'parallel',
      deadlineAt: new Date(oldDeadline).toISOString(),
    });
    await send(id);
    const handle = h.client.workflow.getHandle(contractEnvelopeKind.workflowId(t.workspaceId, id));
    // The workflow runs with the old deadline first.
    await waitFor(
      async () =>
        (await handle.query(envelopeDeadlineQuery).catch(() => null))?.deadlineAt ===
        new Date(oldDeadline).toISOString(),
      10_000,
      'the workflow running with the old deadline',
    );
    const newDeadline = new Date(oldDeadline + 4000);
    const res = await extend(id, { expiresAt: newDeadline.toISOString() });
    expect([res.status, res.body.error]).toEqual([200, undefined]);
    expect(res.body.data.deadlineAt).toBe(newDeadline.toISOString());
    expect(res.body.data.status).toBe('sent');
    await waitFor(
      async () => (await handle.query(envelopeDeadlineQuery)).deadlineAt === newDeadline.toISOString(),
      10_000,
      "the workflow's deadline moved",
    );

    const [a] = await waitLinks(signers[0]!.email);
    // Past the old deadline: still sent, the link still works.
    await new Promise((r) => setTimeout(r, Math.max(0, oldDeadline + 1500 - Date.now())));
    expect((await contractRow(id))!.status).toBe('sent');
    expect((await view(a!)).status).toBe(200);

    const expired = await waitFor(
      async () => ((await contractRow(id))?.status === 'expired' ? contractRow(id) : null),
      15_000,
      'expired at the new deadline',
    );
    expect(expired!.expiredAt!.getTime()).toBeGreaterThanOrEqual(newDeadline.getTime());
    expect((await view(a!)).status).toBe(410);
    const types = (await events(id)).map((e) => e.type);
    expect(types).toContain('contract_extended');
    expect(types).toContain('contract_expired');
    const ext = (await events(id)).find((e) => e.type === 'contract_extended')!;
    expect(ext.payload).toMatchObject({
      previousDeadlineAt: new Date(oldDeadline).toISOString(),
      deadlineAt: newDeadline.toISOString(),
    });
    expect(webhookTypeOf('contract_extended')).toBe('contract.extended');
    // Expired: nothing to extend any more.
    expectError(await extend(id, { expiresAt: new Date(Date.now() + 86_400_000).toISOString() }), 409);
    if (RECORD) {
      await waitFor(async () => (await handle.describe()).status.name !== 'RUNNING', 15_000, 'the workflow to close');
      writeFileSync(
        path.join(__dirname, '../../../test/fixtures/contract-envelope-extended.history.json'),
        JSON.stringify(JSON.parse(historyToJSON(await handle.fetchHistory())), null, 2),
      );
    }
  }, 60_000);

  it('400 for a past, earlier, too far or malformed expiresAt; 409 unless sent with a deadline', async () => {
    const deadline = new Date(Date.now() + 3 * 86_400_000);
    const { id } = await createContract(t.http, { mode: 'parallel', deadlineAt: deadline.toISOString() });
    expectError(await extend(id, { expiresAt: new Date(Date.now() + 5 * 86_400_000).toISOString() }), 409);
    await send(id);
    const day = 86_400_000;
    for (const [body, pattern] of [
      [{}, /expiresAt/],
      [{ expiresAt: 'tomorrow' }, /expiresAt/],
      [{ expiresAt: new Date(Date.now() - 1000).toISOString() }, /future/],
      [{ expiresAt: new Date(deadline.getTime() - day).toISOString() }, /later than the current deadline/],
      [{ expiresAt: deadline.toISOString() }, /later than the current deadline/],
      [{ expiresAt: new Date(Date.now() + (MAX_EXTEND_DAYS + 1) * day).toISOString() }, /at most 365 days/],
    ] as const) {
      const res = await extend(id, body);
      expectError(res, 400, pattern);
      expect(res.body.details.map((d: any) => d.path)).toContain('expiresAt');
    }
    expect((await contractRow(id))!.deadlineAt!.toISOString()).toBe(deadline.toISOString());
    const ok = await extend(id, { expiresAt: new Date(Date.now() + (MAX_EXTEND_DAYS - 1) * day).toISOString() });
    expect(ok.status).toBe(200);
    const none = await createContract(t.http, { mode: 'parallel' });
    await send(none.id);
    expectError(await extend(none.id, { expiresAt: deadline.toISOString() }), 409, /no deadline/);
    await t.http.post(`/api/v1/contracts/${id}/void`, {});
    await t.http.post(`/api/v1/contracts/${none.id}/void`, {});
  });

  it('the 365-day bound at its boundary', () => {
    const now = new Date('2027-01-01T00:00:00Z');
    const current = new Date('2027-01-02T00:00:00Z');
    const max = new Date(now.getTime() + MAX_EXTEND_DAYS * 86_400_000);
    expect(() => checkExtension(max, current, now)).not.toThrow();
    expect(() => checkExtension(new Date(max.getTime() + 1), current, now)).toThrow(/at most 365 days/);
    expect(() => checkExtension(new Date(current.getTime() + 1), current, now)).not.toThrow();
    expect(() => checkExtension(current, current, now)).toThrow(/later than/);
  });
});

describe('automations', () => {
  it('each change starts the automations with its trigger (contract_signer_corrected, contract_invitation_resent, contract_extended)', async () => {
    const d = h.dispatcher([t.workspaceId]);
    try {
      const triggers = ['contract_signer_corrected', 'contract_invitation_resent', 'contract_extended'] as const;
      const automations = new Map<string, string>();
      for (const triggerType of triggers)
        automations.set(
          triggerType,
          await createAutomation(
            t.http,
            chainGraph({ triggerType }, [action('create_activity', { description: 'Changed', activityType: 'note' })]),
          ),
        );
      await d.drainOnce();
      const deadline = new Date(Date.now() + 86_400_000);
      const { id, signers } = await createContract(t.http, { mode: 'parallel', deadlineAt: deadline.toISOString() });
      await send(id);
      await waitInvited(id, signers[0]!._id);
      expect((await patchSigner(id, signers[1]!._id, { name: 'Bo Fixed' })).status).toBe(200);
      expect((await resend(id, signers[0]!._id)).status).toBe(200);
      const later = new Date(deadline.getTime() + 86_400_000).toISOString();
      expect((await extend(id, { expiresAt: later })).status).toBe(200);
      await d.drainOnce();
      for (const triggerType of triggers) {
        // Changes of this file's earlier contracts start runs too: this contract's run is the one looked for.
        const run = await waitFor(
          async () => (await h.executionsOf(automations.get(triggerType)!)).find((r) => r.entityId === id) ?? null,
          20_000,
          `the ${triggerType} automation run`,
        );
        expect(run).toMatchObject({ triggerType, entityType: 'contract', entityId: id });
      }
      await t.http.post(`/api/v1/contracts/${id}/void`, {});
    } finally {
      await d.stop();
    }
  });
});
