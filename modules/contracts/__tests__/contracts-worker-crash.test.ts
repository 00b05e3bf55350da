/**
 * A worker killed -9 between two signatures: the database holds both signatures, the workflow
 * is told by a signal that waits on the server, and a new worker completes the envelope once.
 */
import { Contract, ContractDocument } from '../contract.entity';
import { OutboxEvent } from '../../../platform/outbox/outbox-event.entity';
import { contractEnvelopeKind } from '../contract-envelope.kind';
import { HttpClient, type Tenant } from '../../../test/support/app';
import { waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { withMailCrashEngine } from '../../../test/support/crash-suite';
import { createContract, linksFor } from './support';
import type { LocalSmtp } from '../../../test/unit/messaging/local-smtp';

let h: EngineHarness;
let smtp: LocalSmtp;
let t: Tenant;
let startChild: (env?: NodeJS.ProcessEnv) => Promise<void>;
let killChild: () => Promise<void>;
withMailCrashEngine('Contract crash', {}, (s) => ({ h, t, smtp, startChild, killChild } = s));

it('completes once after the worker is killed between the first and the second signature', async () => {
  // The child starts the envelope workflow of the contract sent below (its starter).
  await startChild({ STARTER_WORKSPACE_IDS: t.workspaceId });
  const pub = new HttpClient(h.app.baseUrl);
  const { id, signers } = await createContract(t.http, { mode: 'parallel' });
  expect((await t.http.post(`/api/v1/contracts/${id}/send`, { reminderIntervalHours: null })).status).toBe(200);
  const tokens = await Promise.all(
    signers.map((s) => waitFor(async () => (await linksFor(smtp, s.email))[0], 20_000, `the link of ${s.email}`)),
  );
  expect((await pub.post(`/public/contracts/sign/${tokens[0]}/sign`, { typedName: 'First' })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 500));

  await killChild();
  expect((await pub.post(`/public/contracts/sign/${tokens[1]}/sign`, { typedName: 'Second' })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 1500));
  const row = () => h.app.runtime.deps.orm.em.fork().findOne(Contract, { _id: id }, { filters: false });
  // Nobody completes it without a worker: the API only records signatures.
  expect((await row())!.status).toBe('sent');

  await h.startWorker();
  await waitFor(async () => (await row())?.status === 'accepted', 45_000, 'the envelope to complete on the new worker');
  const handle = h.client.workflow.getHandle(contractEnvelopeKind.workflowId(t.workspaceId, id));
  await waitFor(
    async () => ((await handle.describe()).status.name === 'COMPLETED' ? true : null),
    20_000,
    'the workflow to complete',
  );
  const em = h.app.runtime.deps.orm.em.fork();
  expect(await em.count(OutboxEvent, { entityId: id, type: 'contract_completed' })).toBe(1);
  expect(await em.count(ContractDocument, { contractId: id }, { filters: false })).toBe(1);
  expect(await em.count(OutboxEvent, { entityId: id, type: 'contract_signed' })).toBe(2);
}, 120_000);
