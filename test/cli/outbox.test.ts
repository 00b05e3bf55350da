import { MikroORM } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids';
import { ormConfig } from '../../domain/orm/config';
import { runCli } from '../../bin/crm/main';
import { insertParkedDelivery } from '../support/outbox';

// In-process runs of the operator CLI (the same code bin/crm.ts runs) against the test database.
let orm: MikroORM;
beforeAll(async () => {
  orm = await MikroORM.init(ormConfig(process.env.DATABASE_URL as string, { logger: () => undefined }));
});
afterAll(() => orm.close(true));

async function crm(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: process.env,
  });
  return { code, stdout, stderr };
}
const json = async (args: string[]) => {
  const res = await crm([...args, '--json']);
  if (res.code !== 0) throw new Error(`crm ${args.join(' ')} exited ${res.code}: ${res.stderr}`);
  return JSON.parse(res.stdout.trim());
};

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
