/**
 * A bulk send of 300 whose worker (a child process) is SIGKILLed mid-send: every recipient not in
 * flight at the kill receives exactly one message, at most the send concurrency end `unknown`, the
 * send completes within seconds of the restart, and `sentAt` is when the mail server accepted.
 */
import type { ChildProcess } from 'node:child_process';
import type { Tenant } from '../../../test/support/app';
import { startEngineHarness, waitFor, type EngineHarness } from '../../../test/support/automation-engine';
import { connectAccount } from '../../../test/support/email';
import { startSmtp, type LocalSmtp } from '../../../test/unit/messaging/local-smtp';
import { startWorkerProcess } from '../../../test/support/worker-process';

const CONCURRENCY = 8;
const RECIPIENTS = 300;
const env = {
  EMAIL_BULK_CONCURRENCY: String(CONCURRENCY),
  EMAIL_BULK_PER_ACCOUNT_PER_SECOND: '0',
  EMAIL_BULK_BATCH_SIZE: '500',
};
let h: EngineHarness;
let smtp: LocalSmtp;
let t: Tenant;
let accountId: string;
let child: ChildProcess | null = null;

beforeAll(async () => {
  // A server that takes a while per message, so the kill lands with messages in flight.
  smtp = await startSmtp({ user: 'mailer', password: 's3cret-smtp', delayMs: 25 });
  h = await startEngineHarness(env);
  // Bundle the workflows once now, so the restart below is a worker start, not a bundle build.
  await h.startWorker();
  await h.stopWorker();
  t = await h.app.tenant('Bulk crash');
  accountId = String((await connectAccount(h.app, t.workspaceId, smtp.port)).account._id);
}, 120_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await h?.close();
  await smtp?.close();
});

const startChildWorker = (): Promise<ChildProcess> =>
  startWorkerProcess({ ...env, TEMPORAL_TASK_QUEUE: h.taskQueue, DATABASE_URL: h.app.config.databaseUrl });

interface Recipient {
  index: number;
  email: string;
  status: string;
  sentAt: string | null;
}

describe('a bulk send whose worker is killed -9 mid-send', () => {
  it('loses nobody: the rest is sent once after the restart, unknown only for what was in flight', async () => {
    child = await startChildWorker();
    const tag = `crash${Date.now().toString(36)}`;
    const address = (i: number) => `${tag}-${i}@bulk.example`;
    const res = await t.http.post('/api/v1/emails/bulk', {
      accountId,
      subject: `Crash test ${tag}`,
      text: 'Hello {{email}}',
      recipients: Array.from({ length: RECIPIENTS }, (_, i) => address(i)),
    });
    expect(res.status).toBe(201);
    const queueId = res.body.data.queueId as string;
    const mine = () => smtp.received.filter((m) => m.to[0]?.startsWith(`${tag}-`));

    await waitFor(async () => mine().length >= 100, 60_000, 'a third of the messages at the server');
    const dead = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await dead;
    child = null;
    const atKill = mine().length;
    expect(atKill).toBeLessThan(RECIPIENTS);

    await h.startWorker();
    const restartedAt = Date.now();
    const done = await waitFor(
      async () => {
        const r = await t.http.get(`/api/v1/emails/bulk/${queueId}?limit=500`);
        return r.body.data?.status === 'completed' ? r.body.data : null;
      },
      60_000,
      'the bulk send to complete after the restart',
    );
    const completedAfterMs = Date.now() - restartedAt;
    // Within the heartbeat timeout (10 s) plus the rest of the sends, not after a 5-minute stale window.
    expect(completedAfterMs).toBeLessThan(25_000);
    // The summary counts every recipient; the page has them all.
    expect(done.summary).toMatchObject({ total: RECIPIENTS, pending: 0, failed: 0 });
    const recipients = done.recipients as Recipient[];
    process.stdout.write(
      `[bulk crash] at the kill ${atKill} at the server; completed ${completedAfterMs} ms after the restart; ` +
        `summary ${JSON.stringify(done.summary)}\n`,
    );
    expect(recipients).toHaveLength(RECIPIENTS);
    const unknown = recipients.filter((r) => r.status === 'unknown');
    expect(unknown.length).toBeLessThanOrEqual(CONCURRENCY);
    expect(done.summary.sent + done.summary.unknown).toBe(RECIPIENTS);

    const byAddress = new Map<string, number[]>();
    for (const m of mine()) byAddress.set(m.to[0]!, [...(byAddress.get(m.to[0]!) ?? []), m.receivedAt]);
    const copies = (r: Recipient) => byAddress.get(r.email)?.length ?? 0;
    // Nobody gets two copies; everybody who is not unknown got exactly one.
    expect(recipients.filter((r) => copies(r) > 1).map((r) => r.index)).toEqual([]);
    expect(recipients.filter((r) => r.status === 'sent' && copies(r) !== 1).map((r) => r.index)).toEqual([]);
    // Some went out only after the restart: the ones the killed worker never handed over.
    expect(mine().filter((m) => m.receivedAt >= restartedAt).length).toBeGreaterThan(0);
    // sentAt is when the server accepted the message, not when the outcome was written down later.
    const late = recipients.filter(
      (r) => r.status === 'sent' && Math.abs(Date.parse(r.sentAt!) - byAddress.get(r.email)![0]!) > 1000,
    );
    expect(late.map((r) => [r.index, r.sentAt, new Date(byAddress.get(r.email)![0]!).toISOString()])).toEqual([]);
  }, 180_000);
});
