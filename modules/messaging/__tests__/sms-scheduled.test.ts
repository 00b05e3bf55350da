import { ScheduledSms } from '../sms-message.entity';
import type { Tenant } from '../../../test/support/app';
import { waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { uniquePhone } from '../../../test/support/sms';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';
import { withEngine } from '../../../test/support/engine-suite';

// Scheduled SMS end to end: the API, an in-process worker on this file's task queue, a local gateway.
let h: EngineHarness;
let gateway: LocalHttp;
let t: Tenant;
beforeAll(async () => {
  gateway = await startHttp();
  gateway.respond(json(200, { id: 'gw-scheduled', status: 'queued' }));
});
withEngine('Scheduled SMS', (s) => ({ h, t } = s), {
  env: () => ({ SMS_GATEWAY_URL: `${gateway.url}/sms`, SMS_GATEWAY_TOKEN: 'tok', SMS_DEFAULT_FROM: 'Acme' }),
});
afterAll(() => gateway?.close());

const rowOf = (id: string) => h.app.runtime.deps.orm.em.fork().findOne(ScheduledSms, { _id: id }, { filters: false });
const sentTo = (to: string) => gateway.requests.filter((r) => JSON.parse(r.body).to === to);
const workflowStatus = async (workflowId: string) =>
  (await h.client.workflow.getHandle(workflowId).describe()).status.name;

async function schedule(inMs: number, message = 'Scheduled hello') {
  const to = uniquePhone();
  const res = await t.http.post('/api/v1/sms/schedule', {
    to,
    message,
    sendAt: new Date(Date.now() + inMs).toISOString(),
  });
  expect(res.status).toBe(201);
  return { ...(res.body.data as { _id: string; workflowId: string; sendAt: string }), to };
}

it('sends once at sendAt: the SMS is stored, the row is sent, the workflow completes', async () => {
  const s = await schedule(1500);
  expect(sentTo(s.to)).toHaveLength(0);
  const row = await waitFor(
    async () => ((await rowOf(s._id))?.status === 'sent' ? rowOf(s._id) : null),
    20_000,
    'the scheduled SMS to be sent',
  );
  expect(row!.sentAt!.getTime()).toBeGreaterThanOrEqual(Date.parse(s.sendAt));
  expect(sentTo(s.to)).toHaveLength(1);
  expect(JSON.parse(sentTo(s.to)[0]!.body)).toEqual({ to: s.to, from: 'Acme', message: 'Scheduled hello' });
  const sms = (await t.http.get(`/api/v1/sms/${row!.smsId}`)).body.data;
  expect(sms).toMatchObject({ direction: 'outbound', to: s.to, status: 'sent', source: 'api', sourceRef: s._id });
  await waitFor(async () => (await workflowStatus(s.workflowId)) === 'COMPLETED', 10_000, 'the workflow to complete');
  // Only ids and the time in the workflow's input: the text is loaded by the activity.
  const history = await h.client.workflow.getHandle(s.workflowId).fetchHistory();
  expect(JSON.stringify(history)).not.toContain(Buffer.from('Scheduled hello').toString('base64'));
  const listed = (await t.http.get('/api/v1/sms/scheduled?status=sent')).body.data.map((x: any) => x._id);
  expect(listed).toContain(s._id);
  expect((await t.http.delete(`/api/v1/sms/scheduled/${s._id}`)).status).toBe(409);
}, 40_000);

it('a worker restart across sendAt neither loses nor duplicates the send', async () => {
  const s = await schedule(3000, 'Survives restarts');
  await h.stopWorker();
  // The timer fires while no worker polls: the run waits on the server, not in a process.
  await new Promise((r) => setTimeout(r, 4000));
  expect(sentTo(s.to)).toHaveLength(0);
  expect((await rowOf(s._id))!.status).toBe('scheduled');
  await h.startWorker();
  await waitFor(
    async () => (await rowOf(s._id))?.status === 'sent',
    30_000,
    'the scheduled SMS to be sent after the restart',
  );
  await waitFor(async () => (await workflowStatus(s.workflowId)) === 'COMPLETED', 10_000, 'the workflow to complete');
  await new Promise((r) => setTimeout(r, 1000));
  expect(sentTo(s.to)).toHaveLength(1);
  expect((await t.http.get(`/api/v1/sms?phoneNumber=${encodeURIComponent(s.to)}`)).body.total).toBe(1);
}, 60_000);

it('cancel during the timer: the row is cancelled, the workflow is cancelled, nothing is sent', async () => {
  const s = await schedule(2500, 'Never');
  const res = await t.http.delete(`/api/v1/sms/scheduled/${s._id}`);
  expect(res.status).toBe(200);
  expect(res.body.data.status).toBe('cancelled');
  await waitFor(
    async () => (await workflowStatus(s.workflowId)) === 'CANCELLED',
    10_000,
    'the workflow to be cancelled',
  );
  await new Promise((r) => setTimeout(r, 3000));
  expect(sentTo(s.to)).toHaveLength(0);
  expect((await rowOf(s._id))!.status).toBe('cancelled');
  expect((await t.http.delete(`/api/v1/sms/scheduled/${s._id}`)).status).toBe(409);
}, 30_000);

it('a gateway refusal at sendAt marks the scheduled SMS failed (no retry of a refused message)', async () => {
  gateway.respond(json(400, { error: 'blocked number' }));
  try {
    const s = await schedule(1000, 'Refused');
    const row = await waitFor(
      async () => {
        const r = await rowOf(s._id);
        return r?.status === 'failed' ? r : null;
      },
      20_000,
      'the scheduled SMS to fail',
    );
    expect(row.error).toContain('blocked number');
    expect(sentTo(s.to)).toHaveLength(1);
    const sms = (await t.http.get(`/api/v1/sms?phoneNumber=${encodeURIComponent(s.to)}`)).body.data;
    expect(sms).toEqual([expect.objectContaining({ status: 'failed' })]);
  } finally {
    gateway.respond(json(200, { id: 'gw-scheduled', status: 'queued' }));
  }
}, 30_000);
