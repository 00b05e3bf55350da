import type { MikroORM } from '@mikro-orm/postgresql';
import { runCrm as crm, runCrmJson as json, withTestOrm } from '../support/cli';
import { newId } from '../../platform/ids';
import { createLogger } from '../../platform/logger';
import { createOutboxDispatcher } from '../../platform/outbox/dispatcher';
import type { OutboxEventRecord } from '../../platform/outbox/subscriber';
import { insertParkedDelivery } from '../support/outbox';

// In-process runs of the operator CLI (the same code bin/crm.ts runs) against the test database.
let orm: MikroORM;
withTestOrm((o) => (orm = o));

it('outbox list shows failing side effects per subscriber with their last error; retry and drop act on one', async () => {
  const ws = newId();
  const failed = await insertParkedDelivery(orm, ws);
  const failing = await insertParkedDelivery(orm, ws, { subscriber: 'search-index', status: 'pending', attempts: 3 });

  const human = await crm(['outbox', 'list', '--workspace', ws]);
  expect(human.code).toBe(0);
  expect(human.stdout).toContain('booking-notifications (1):');
  expect(human.stdout).toContain('search-index (1):');
  expect(human.stdout).toContain(`${failed}  failed`);
  expect(human.stdout).toContain('last error: 550 Mailbox unavailable');

  const listed = await json(['outbox', 'list', '--workspace', ws, '--status', 'failing']);
  expect(listed.total).toBe(1);
  expect(listed.deliveries[0]).toMatchObject({
    _id: failing,
    subscriber: 'search-index',
    status: 'failing',
    attempts: 3,
  });

  expect(await json(['outbox', 'retry', '--id', failed])).toMatchObject({ _id: failed, status: 'queued', attempts: 0 });
  expect(await json(['outbox', 'drop', '--id', failing])).toMatchObject({ _id: failing, status: 'dropped' });
  const after = await json(['outbox', 'list', '--workspace', ws]);
  expect(after.deliveries.map((d: { _id: string; status: string }) => [d._id, d.status]).sort()).toEqual(
    [
      [failed, 'queued'],
      [failing, 'dropped'],
    ].sort(),
  );
});

it('bad input is refused before touching anything', async () => {
  const bad = await crm(['outbox', 'list', '--status', 'stuck']);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toMatch(/--status: must be one of: queued, failing, failed, dropped/);
  const missing = await crm(['outbox', 'retry', '--id', newId()]);
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toMatch(/outbox delivery not found/);
});

it('outbox retry wakes the dispatchers: the delivery is attempted at once, not at the next poll', async () => {
  const ws = newId();
  const delivered: Array<{ event: OutboxEventRecord; at: number }> = [];
  const dispatcher = createOutboxDispatcher({
    pgConnectionString: process.env.DATABASE_URL as string,
    workspaceIds: [ws],
    log: createLogger('silent', 'cli-outbox-test'),
    pollIntervalMs: 60_000, // without the NOTIFY the retry would wait a minute
    subscribers: [{ name: 'search-index', handle: async (event) => void delivered.push({ event, at: Date.now() }) }],
  });
  await dispatcher.start();
  try {
    const id = await insertParkedDelivery(orm, ws, { subscriber: 'search-index' });
    await new Promise((r) => setTimeout(r, 300)); // the start-up passes are over; a failed row waits
    expect(delivered).toHaveLength(0);
    expect(await json(['outbox', 'retry', '--id', id])).toMatchObject({ _id: id, status: 'queued' });
    const answered = Date.now();
    while (delivered.length === 0 && Date.now() - answered < 5000) await new Promise((r) => setTimeout(r, 20));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.at - answered).toBeLessThan(1000);
    // The handler has run; the parked row goes in the outcome statement that follows it.
    const left = async (): Promise<number> => {
      const [row] = await orm.em
        .fork()
        .getConnection()
        .execute<{ n: number }[]>('select count(*)::int as n from outbox_delivery where id = ?', [id]);
      return row!.n;
    };
    const until = Date.now() + 2000;
    while ((await left()) > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    expect(await left()).toBe(0);
  } finally {
    await dispatcher.stop();
  }
});
