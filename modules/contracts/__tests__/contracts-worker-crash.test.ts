/**
 * A worker killed -9 between two signatures: the database holds both signatures, the workflow
 * is told by a signal that waits on the server, and a new worker completes the envelope once.
 */
import type { ChildProcess } from 'node:child_process';
import { Contract, ContractDocument } from '../contract.entity';
import { OutboxEvent } from '../../../platform/outbox/outbox-event.entity';
import { contractEnvelopeKind } from '../contract-envelope.kind';
import { HttpClient, type Tenant } from '../../../test/support/app';
import { startEngineHarness, waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { createContract, linksFor } from './support';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { createMessagingDeps } from '../../email/messaging-deps';
import { startWorkerProcess } from '../../../test/support/worker-process';

let h: EngineHarness;
let smtp: LocalSmtp;
let t: Tenant;
let child: ChildProcess | null = null;
const mailEnv = () => ({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'CRM <crm@example.test>' });

beforeAll(async () => {
  smtp = await startSmtp();
  h = await startEngineHarness(mailEnv());
  h.messaging = createMessagingDeps(h.app.config);
  // Bundle once now, so the restart below is a worker start, not a bundle build.
  await h.startWorker();
  await h.stopWorker();
  t = await h.app.tenant('Contract crash');
}, 120_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await h?.close();
  h?.messaging?.close();
  await smtp?.close();
}, 90_000);

const startChildWorker = (): Promise<ChildProcess> =>
  startWorkerProcess({
    ...mailEnv(),
    TEMPORAL_TASK_QUEUE: h.taskQueue,
    DATABASE_URL: h.app.config.databaseUrl,
    // The child starts the envelope workflow of the contract sent below (its starter).
    STARTER_WORKSPACE_IDS: t.workspaceId,
  });

it('completes once after the worker is killed between the first and the second signature', async () => {
  child = await startChildWorker();
  const pub = new HttpClient(h.app.baseUrl);
  const { id, signers } = await createContract(t.http, { mode: 'parallel' });
  expect((await t.http.post(`/api/v1/contracts/${id}/send`, { reminderIntervalHours: null })).status).toBe(200);
  const tokens = await Promise.all(
    signers.map((s) => waitFor(async () => (await linksFor(smtp, s.email))[0], 20_000, `the link of ${s.email}`)),
  );
  expect((await pub.post(`/public/contracts/sign/${tokens[0]}/sign`, { typedName: 'First' })).status).toBe(200);
  await new Promise((r) => setTimeout(r, 500));

  child.kill('SIGKILL');
  await new Promise((r) => child!.once('exit', r));
  child = null;
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
