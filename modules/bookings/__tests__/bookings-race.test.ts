/**
 * Booking races under load: while another process burns a core (and jest's other worker runs a test
 * file), 20 concurrent POST /bookings for one slot race a reschedule into that slot, an approval and a
 * cancellation on the same agent's day. Every write of a hold takes the agent's lock before any row
 * (availability.ts lockAgents), so nothing deadlocks: one holder, every other request a 409 within 2 s, never a 500.
 * The API runs in a process of its own, as in production, so the test's 23 clients do not share its event loop
 * (CRM_TEST_BOOKING_RACE_IN_PROCESS=1 uses the harness's in-process API instead, for comparison). Then an approval
 * whose booking moves to another agent meanwhile, beside a writer holding that agent: no deadlock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { decideBooking } from '../approval.service';
import { agentLockKey } from '../agent-locks';
import { Booking } from '../booking.entity';
import type { HttpClient, Tenant } from '../../../test/support/app';
import { startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { startEngineHarness, type EngineHarness } from '../../../test/support/automation-engine';
import { workspaceCtx } from '../../../test/support/automations';
import { book, createConfig, freshDay } from './support';

let h: EngineHarness;
let t: Tenant;
let api: ApiProcess | undefined;
/** The tenant's client of the API under test (the child process's). */
let http: HttpClient;
let burners: ChildProcess[] = [];
/**
 * The bound per request: issue 24's 2 s, in every environment (CI runs the whole suite on 2 cores beside the burner;
 * its slowest answers were 1.1 and 1.5 s before a losing request stopped using the ORM). CRM_TEST_BOOKING_RACE_MS
 * sets another (only to see every round's figures). The first race's one-time costs (validator compiles, source
 * maps, prepared statements) are paid by an untimed warm-up race.
 */
const MAX_MS = Number(process.env.CRM_TEST_BOOKING_RACE_MS ?? 2000);
const IN_PROCESS = process.env.CRM_TEST_BOOKING_RACE_IN_PROCESS === '1';

beforeAll(async () => {
  h = await startEngineHarness();
  t = await h.app.tenant('Booking races');
  // The child API starts approval runs on this harness's task queue (terminated by h.close()).
  if (!IN_PROCESS)
    api = await startApiProcess({ TEMPORAL_TASK_QUEUE: h.taskQueue, OUTBOUND_ALLOW_HOSTS: '127.0.0.1,localhost' });
  http = api ? api.client(t.apiKey) : t.http;
}, 120_000);
afterAll(async () => {
  for (const b of burners) b.kill('SIGKILL');
  await api?.stop();
  await h?.close();
}, 60_000);

/** Busy loops in other processes, for the duration of the race (on top of the other jest worker's test file). */
function burnCpu(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

const timed = async <T>(fn: () => Promise<T>): Promise<{ ms: number; res: T }> => {
  const at = Date.now();
  const res = await fn();
  return { ms: Date.now() - at, res };
};

describe('concurrent writes of one slot under load', () => {
  it('20 bookings, a reschedule into the slot, an approval and a cancel: one holder, 409s within 2 s, no 500', async () => {
    const confirmed = await createConfig(http);
    const approving = await createConfig(http, { requiresApproval: true, approvalDeadlineHours: 24 });
    const ctx = await workspaceCtx(h.app, t.http);
    const em = () => h.app.runtime.deps.orm.em.fork();

    /** One race on a fresh day: 20 POSTs for one slot, a reschedule into it, a cancel and an approval beside it. */
    const race = async (round: number) => {
      const day = freshDay();
      const slot = `${day}T13:00:00.000Z`;
      const moving = (await book(http, confirmed._id, `${day}T09:00:00Z`)).body.data;
      const leaving = (await book(http, confirmed._id, `${day}T12:00:00Z`)).body.data;
      const waiting = (await book(http, approving._id, `${day}T14:00:00Z`)).body.data;
      expect([moving.status, leaving.status, waiting.status]).toEqual(['confirmed', 'confirmed', 'pending']);
      const cpu = process.cpuUsage();
      const apiCpu = api?.cpuMs() ?? 0;
      const [posts, reschedule, cancel, approve] = await Promise.all([
        Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            timed(() =>
              book(http, confirmed._id, slot, {
                attendeeInfo: { name: `Racer ${round}-${i}`, email: `racer${round}-${i}-${Date.now()}@example.test` },
              }),
            ),
          ),
        ),
        timed(() => http.post(`/api/v1/bookings/${moving._id}/reschedule`, { newSlotStart: slot })),
        timed(() => http.post(`/api/v1/bookings/${leaving._id}/cancel`, { reason: 'race' })),
        timed(() => decideBooking(ctx, { bookingId: waiting._id, decision: 'approve', userId: ctx.actor.userId })),
      ]);
      const used = process.cpuUsage(cpu);
      const cpuMs = Math.round((used.user + used.system) / 1000);
      return { slot, posts, reschedule, cancel, approve, cpuMs, apiCpuMs: api ? api.cpuMs() - apiCpu : null };
    };

    // A running API is warm: its connection pool is open, its code compiled, and (in tests) the contract check has
    // compiled the validators of these routes and the error paths have loaded their source maps. One untimed race
    // pays those first-use costs, which a long-running API pays once, not per burst.
    await Promise.all(Array.from({ length: 20 }, () => http.get('/api/v1/bookings?limit=1')));
    await race(-1);
    burners = burnCpu(1);
    try {
      for (let round = 0; round < 3; round++) {
        const { slot, posts, reschedule, cancel, approve, cpuMs, apiCpuMs } = await race(round);

        process.stdout.write(
          `[booking race] round ${round}: slowest POST ${Math.max(...posts.map((p) => p.ms))} ms, reschedule ` +
            `${reschedule.res.status} in ${reschedule.ms} ms, cancel ${cancel.ms} ms, approve ${approve.ms} ms; ` +
            `CPU: test process ${cpuMs} ms${apiCpuMs === null ? ' (API in it)' : `, API process ${apiCpuMs} ms`}; ` +
            `POSTs (ms, sorted): ${posts
              .map((p) => p.ms)
              .sort((x, y) => x - y)
              .join(' ')}\n`,
        );
        const answers = [...posts, reschedule, cancel].map(({ ms, res }) => ({
          ms,
          status: res.status,
          body: res.body,
        }));
        expect(answers.filter((a) => a.status >= 500)).toEqual([]);
        const won = posts.filter((p) => p.res.status === 201).length + (reschedule.res.status === 200 ? 1 : 0);
        expect(won).toBe(1);
        expect(posts.filter((p) => p.res.status !== 201 && p.res.status !== 409)).toEqual([]);
        for (const p of posts.filter((x) => x.res.status === 409))
          expect(p.res.body).toMatchObject({ error: expect.stringContaining('no longer available'), code: 'conflict' });
        expect([200, 409]).toContain(reschedule.res.status);
        // None slower than 2 s (a deadlock costs the victim Postgres' deadlock_timeout and a retry, per round).
        expect(posts.map((p) => p.ms).filter((ms) => ms > MAX_MS)).toEqual([]);
        expect(cancel.res.status).toBe(200);
        expect(approve.res).toEqual({ decided: true, status: 'approved' });

        const holders = await em().find(
          Booking,
          {
            workspaceId: t.workspaceId,
            startDateTime: new Date(slot),
            status: { $in: ['pending', 'approved', 'confirmed'] },
          },
          { filters: false },
        );
        expect(holders).toHaveLength(1);
      }
    } finally {
      for (const b of burners) b.kill('SIGKILL');
      burners = [];
    }
  }, 120_000);
});

describe('an approval whose booking a reschedule moved to another agent meanwhile', () => {
  it('holds one agent lock at a time: no deadlock with a writer that holds the new agent and waits for the old', async () => {
    const approving = await createConfig(t.http, { requiresApproval: true, approvalDeadlineHours: 24 });
    const pending = (await book(t.http, approving._id, `${freshDay()}T10:00:00Z`)).body.data;
    expect(pending.status).toBe('pending');
    const ctx = await workspaceCtx(h.app, t.http);
    const knex = h.app.runtime.deps.orm.em.getConnection().getKnex();
    const from = pending.agentId as string;
    const to = 'f'.repeat(24);
    const key = (agentId: string) => agentLockKey(t.workspaceId, agentId);
    const lock = (trx: typeof knex, agentId: string) =>
      trx.raw('select pg_advisory_xact_lock(?::bigint)', [key(agentId).toString()]);
    /** Resolves once a transaction waits for the agent's lock (pg_locks: a bigint key is classid, objid). */
    const someoneWaitsFor = async (agentId: string): Promise<void> => {
      const k = BigInt.asUintN(64, key(agentId));
      const [hi, lo] = [Number(k >> BigInt(32)), Number(k & BigInt(0xffffffff))];
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 20))) {
        const { rows } = (await knex.raw(
          `select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = ?::bigint::oid
            and objid = ?::bigint::oid and objsubid = 1 and not granted`,
          [hi, lo],
        )) as { rows: { n: number }[] };
        if (rows[0]!.n > 0) return;
      }
      throw new Error(`nobody waits for the lock of ${agentId}`);
    };
    // x holds the booking's agent, so the decision reads the booking and then waits for that lock; x then moves the
    // booking to another agent (as a reschedule does) while y holds that one. Once x commits, the decision finds the
    // row moved; y then asks for the first agent's lock. A decision that kept the first lock while waiting for the
    // second would deadlock with y here (one of them fails with 40P01 after deadlock_timeout).
    const x = await knex.transaction();
    const y = await knex.transaction();
    try {
      await lock(x, from);
      const decision = decideBooking(ctx, { bookingId: pending._id, decision: 'approve', userId: ctx.actor.userId });
      await someoneWaitsFor(from);
      await lock(y, to);
      await x.raw('update booking set agent_id = ? where id = ?', [to, pending._id]);
      await x.commit();
      await someoneWaitsFor(to);
      await lock(y, from);
      await y.commit();
      expect(await decision).toEqual({ decided: true, status: 'approved' });
    } finally {
      if (!x.isCompleted()) await x.rollback();
      if (!y.isCompleted()) await y.rollback();
    }
    const [row] = (await knex.raw('select status, agent_id from booking where id = ?', [pending._id])).rows as {
      status: string;
      agent_id: string;
    }[];
    expect(row).toEqual({ status: 'approved', agent_id: to });
  }, 60_000);
});
