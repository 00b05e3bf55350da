/**
 * Issue 29: failed invitations are visible. SMTP sits behind a TCP proxy the test takes down: a
 * contract sent meanwhile shows each signer's invitation retrying (last error, next attempt), the
 * contract says no invitation could be delivered and a `contract_invitation_failed` event is out;
 * once mail is back the retry delivers and the signers show `sent`.
 */
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { Contract, ContractSigner } from '../contract.entity';
import { recordInvitationFailures } from '../invitation-failures';
import { createMessagingDeps } from '../../email/messaging-deps';
import type { Tenant } from '../../../test/support/app';
import { startEngineHarness, waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { contractEvents, createContract, linksFor } from './support';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';

jest.setTimeout(120_000);
let smtp: LocalSmtp;
let proxy: TcpProxy;
let h: EngineHarness;
let t: Tenant;

beforeAll(async () => {
  smtp = await startSmtp();
  proxy = await startTcpProxy({ port: smtp.port });
  h = await startEngineHarness({
    SMTP_URL: `smtp://127.0.0.1:${proxy.port}`,
    MAIL_FROM: 'CRM <crm@example.test>',
    SECRETS_ENCRYPTION_KEY: 'test-encryption-key-for-webhook-secrets',
  });
  h.messaging = createMessagingDeps(h.app.config);
  await h.startWorker();
  t = await h.app.tenant('Contract invitations');
}, 90_000);
afterAll(async () => {
  await h?.close();
  h?.messaging?.close();
  await proxy?.close();
  await smtp?.close();
}, 60_000);

const contractOf = async (id: string) => (await t.http.get(`/api/v1/contracts/${id}`)).body.data;
const events = (id: string) => contractEvents(h, id);
/** The contract once every signer's invitation has `status` (waits up to `ms`). */
const waitInvitations = (id: string, status: string, ms: number, what: string) =>
  waitFor(
    async () => {
      const c = await contractOf(id);
      return c.signers.every((s: any) => s.invitation.status === status) ? c : null;
    },
    ms,
    what,
  );

it('mail down: each signer shows its invitation retrying with the error and the next attempt; mail back: sent', async () => {
  await proxy.down();
  const { id, signers } = await createContract(t.http, { mode: 'parallel' });
  const sent = await t.http.post(`/api/v1/contracts/${id}/send`, { reminderIntervalHours: null });
  expect(sent.status).toBe(200);
  // Queued with the send, before the worker tried anything.
  expect(sent.body.data.signers.map((s: any) => s.invitation.status)).toEqual(['queued', 'queued']);

  const failing = await waitInvitations(id, 'retrying', 30_000, 'both invitations retrying');
  for (const s of failing.signers) {
    expect(s.status).toBe('pending');
    expect(s.invitedAt).toBeNull();
    expect(s.invitation.attempts).toBeGreaterThanOrEqual(1);
    expect(typeof s.invitation.lastError).toBe('string');
    expect(s.invitation.lastError.length).toBeGreaterThan(0);
    expect(Date.parse(s.invitation.nextAttemptAt)).toBeGreaterThan(Date.parse(failing.sentAt));
  }
  expect(failing.status).toBe('sent');
  expect(failing.invitations).toMatchObject({ sent: 0, retrying: 2, noneDelivered: true });
  expect(failing.lastError).toMatch(/^no invitation could be delivered \(2 retrying, 0 failed; next attempt at /);

  // One event per signer on the first failure (not one per retry), saying none got out.
  const failed = (await events(id)).filter((e) => e.type === 'contract_invitation_failed');
  expect(failed.map((e) => (e.payload as any).signerId).sort()).toEqual(signers.map((s) => s._id).sort());
  for (const e of failed)
    expect(e.payload).toMatchObject({ contractId: id, invitationStatus: 'retrying', noneDelivered: true, attempts: 1 });

  await proxy.up();
  const delivered = await waitInvitations(id, 'sent', 60_000, 'both invitations sent after mail is back');
  for (const s of delivered.signers) {
    expect(s.status).toBe('invited');
    expect(s.invitation).toMatchObject({ lastError: null, nextAttemptAt: null });
    expect(s.invitation.attempts).toBeGreaterThanOrEqual(2);
    expect(await linksFor(smtp, s.email)).toHaveLength(1);
  }
  expect(delivered.invitations).toMatchObject({ sent: 2, retrying: 0, failed: 0, noneDelivered: false });
  expect(delivered.lastError).toBeNull();
  expect((await events(id)).filter((e) => e.type === 'contract_invitation_failed')).toHaveLength(2);

  // An attempt that read the envelope while mail was down and records its failure only now (after a later
  // attempt delivered): the signers stay sent, the contract's lastError stays null, no event says otherwise.
  const em = forkForWorkspace(h.app.runtime.deps.orm.em, t.workspaceId);
  const c = await em.findOneOrFail(Contract, { _id: id });
  const stale = (await em.find(ContractSigner, { contractId: id })).map((s) =>
    Object.assign(Object.create(Object.getPrototypeOf(s)), s, {
      invitedAt: null,
      invitationStatus: 'retrying',
      invitationAttempts: 1,
    }),
  );
  const refused = stale.map((s) => ({ signer: s, error: new Error('connect ECONNREFUSED') }));
  await recordInvitationFailures(em, { c, signers: stale }, refused, new Set(), {
    attempt: 2,
    firstScheduledMs: Date.now(),
  });
  const after = await contractOf(id);
  expect(after.lastError).toBeNull();
  expect(after.signers.map((s: any) => s.invitation.status)).toEqual(['sent', 'sent']);
  expect((await events(id)).filter((e) => e.type === 'contract_invitation_failed')).toHaveLength(2);
});
