import { createLogger } from '../../platform/logger';
import { createOutboxDispatcher, type OutboxDispatcher } from '../../platform/outbox/dispatcher';
import type { OutboxEventRecord, Subscriber } from '../../platform/outbox/subscriber';
import { startTestApp, type Tenant, type TestApp } from '../support/app';
import { insertParkedDelivery } from '../support/outbox';

// An operator's retry wakes the dispatchers' parked-delivery runner by NOTIFY: the attempt follows at
// once, not at the next poll (60 s here, so without the NOTIFY the test times out).
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'outbox-admin-retry-test');
let app: TestApp;
let t: Tenant;
let dispatcher: OutboxDispatcher;
const delivered: Array<{ event: OutboxEventRecord; at: number }> = [];

beforeAll(async () => {
  app = await startTestApp();
  t = await app.tenant('Outbox retry');
  const subscriber: Subscriber = {
    name: 'booking-notifications',
    async handle(event) {
      delivered.push({ event, at: Date.now() });
    },
  };
  dispatcher = createOutboxDispatcher({
    pgConnectionString: app.config.databaseUrl,
    workspaceIds: [t.workspaceId],
    subscribers: [subscriber],
    log,
    pollIntervalMs: 60_000,
  });
  await dispatcher.start();
  await new Promise((r) => setTimeout(r, 200)); // past the start-up passes, into the 60 s wait
});
afterAll(async () => {
  await dispatcher?.stop();
  await app?.close();
});

const parkedCount = async (id: string): Promise<number> => {
  const [row] = await app.runtime.deps.orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>(`select count(*)::int as n from outbox_delivery where id = ?`, [id]);
  return row!.n;
};

it('POST /admin/outbox/deliveries/:id/retry: the delivery is attempted at once, not at the next poll', async () => {
  const id = await insertParkedDelivery(app.runtime.deps.orm, t.workspaceId);
  await new Promise((r) => setTimeout(r, 300));
  expect(delivered).toHaveLength(0); // failed rows are not attempted by themselves

  const res = await t.http.post(`/api/v1/admin/outbox/deliveries/${id}/retry`);
  expect(res.status).toBe(200);
  const answered = Date.now();
  expect(res.body.data).toMatchObject({ _id: id, status: 'queued', attempts: 0 });
  const deadline = Date.now() + 5000;
  while (delivered.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(delivered).toHaveLength(1);
  // Measured from the answer (the NOTIFY goes at commit, before it): a loaded machine may take a
  // second to answer, but the attempt itself follows within well under the 60 s poll.
  expect(delivered[0]!.at - answered).toBeLessThan(1000);
  expect(delivered[0]!.event).toMatchObject({ workspaceId: t.workspaceId, type: 'booking_created' });
  expect(await parkedCount(id)).toBe(0);
});
