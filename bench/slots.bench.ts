// `npm run bench:slots`: a booking config with 3 agents (Mon-Fri 08:00-18:00 Europe/Copenhagen,
// 30-minute meetings, 10-minute buffer after) and 2,000 existing bookings (plus some calendar
// events), then GET /api/v1/bookings/available-slots for 30 days through the whole API, repeated
// (BENCH_ROUNDS, default 200, after 20 warm-up calls); then 20 concurrent POST /bookings of one
// slot (ok = exactly one 201 and nineteen 409). Uses DATABASE_URL when set (assumed migrated);
// otherwise starts an embedded Postgres with the test profile (CRM_BENCH_PG_PORT, default 54369)
// and stops it at the end. Last line:
// RESULT slots_p50_ms=<x> slots_p95_ms=<x> booking_race_ok=<true|false>   (target p95 ≤ 50 ms)
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { DateTime } from 'luxon';
import { buildApi } from '../api/bootstrap';
import { availableSlots } from '../modules/bookings/availability';
import { BookingConfig } from '../modules/bookings/booking.entity';
import { loadConfig } from '../app/config';
import { newId } from '../platform/ids';
import { createLogger } from '../platform/logger';
import { ormConfig } from '../app/orm';
import { runMigrations } from '../app/migrate';
import { forkForWorkspace } from '../platform/orm/tenant';
import { createUser, createWorkspace } from '../modules/workspaces/workspaces.service';
import { devDataDir } from '../infra/paths';
import { startStack, type RunningStack } from '../infra/stack';
import { percentile } from './stats';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const WARMUP = 20;
const BOOKINGS = 2000;
const ZONE = 'Europe/Copenhagen';
const TARGET_P95_MS = 50;
const log = (line: string): void => void process.stderr.write(`[bench] ${line}\n`);

const fmt = (n: number): string => n.toFixed(2);

async function database(): Promise<{ url: string; stack?: RunningStack }> {
  const url = process.env.DATABASE_URL?.trim();
  if (url) return { url };
  log('DATABASE_URL not set: starting an embedded Postgres (test profile)…');
  const stack = await startStack({
    profile: 'test',
    env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:9', MEILI_URL: 'http://127.0.0.1:9' },
    dataDir: path.join(devDataDir(), 'bench-slots'),
    ports: { postgres: Number(process.env.CRM_BENCH_PG_PORT ?? 54369) },
    log,
  });
  await runMigrations(stack.env.DATABASE_URL);
  return { url: stack.env.DATABASE_URL, stack };
}

const WEEK = Object.fromEntries(
  ['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start: '08:00', end: '18:00' }]]),
);

/**
 * 2,000 confirmed bookings on weekdays from tomorrow on: 5 per agent and day (about 300 fall in the 30 queried days,
 * the rest later).
 */
async function seed(orm: MikroORM, workspaceId: string, configId: string, agents: string[]): Promise<void> {
  const em = orm.em.fork();
  const rows: unknown[][] = [];
  const events: unknown[][] = [];
  for (
    let day = DateTime.now().setZone(ZONE).plus({ days: 1 }).startOf('day');
    rows.length < BOOKINGS;
    day = day.plus({ days: 1 })
  ) {
    if (day.weekday > 5) continue;
    for (const agent of agents) {
      // A meeting every two hours (08:00 … 16:00) leaves the odd hours bookable; the first agent
      // has a calendar event in one of them.
      if (agent === agents[0]) {
        const s = day.set({ hour: 11, minute: 10 });
        events.push([
          newId(),
          workspaceId,
          new Date(),
          new Date(),
          'Busy',
          'meeting',
          s.toJSDate(),
          s.plus({ minutes: 40 }).toJSDate(),
          agent,
        ]);
      }
      for (let i = 0; i < 5 && rows.length < BOOKINGS; i++) {
        const start = day.set({ hour: 8 + 2 * i });
        const end = start.plus({ minutes: 30 });
        rows.push([
          newId(),
          workspaceId,
          new Date(),
          new Date(),
          randomBytes(24).toString('base64url'),
          configId,
          'meeting',
          'Meeting',
          agent,
          'confirmed',
          start.toJSDate(),
          end.toJSDate(),
          start.toJSDate(),
          end.plus({ minutes: 10 }).toJSDate(),
          ZONE,
          JSON.stringify({ name: 'Bench', email: 'bench@example.test' }),
        ]);
      }
    }
  }
  for (let i = 0; i < rows.length; i += 500) {
    const batch = rows.slice(i, i + 500);
    await em.execute(
      `insert into booking (id, workspace_id, created_at, updated_at, public_id, config_id, meeting_type_id, meeting_type_name, agent_id, status, start_date_time, end_date_time, hold_start, hold_end, time_zone, attendee_info) values ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      batch.flat(),
    );
  }
  if (events.length) {
    await em.execute(
      `insert into calendar_event (id, workspace_id, created_at, updated_at, title, type, start, "end", owner_id) values ${events.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
      events.flat(),
    );
  }
  await em.execute('analyze booking');
  await em.execute('analyze calendar_event');
}

async function main(): Promise<void> {
  const db = await database();
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: db.url,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:9',
    MEILI_URL: process.env.MEILI_URL ?? 'http://127.0.0.1:9',
    RATE_LIMIT_PER_MINUTE: '100000000',
    RATE_LIMIT_PER_DAY: '100000000',
  });
  const orm = await MikroORM.init(ormConfig(db.url));
  const api = await buildApi(config, createLogger('silent', 'bench-api'));
  const server = api.app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const ws = await createWorkspace(orm.em.fork(), { name: 'Slots benchmark' });
    const em = forkForWorkspace(orm.em, ws.workspaceId);
    const agents = [ws.userId];
    for (const n of [2, 3])
      agents.push(
        (
          await createUser(em, {
            workspaceId: ws.workspaceId,
            email: `agent${n}-${newId()}@bench.test`,
            firstName: `Agent ${n}`,
            role: 'member',
          })
        ).id,
      );
    const headers = { authorization: `Bearer ${ws.apiKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/api/v1/booking-configs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Bench',
        timeZone: ZONE,
        agents: agents.map((userId) => ({ userId, weeklyAvailability: WEEK })),
        meetingTypes: [{ id: 'meeting', name: 'Meeting', durationMinutes: 30 }],
        bufferAfterMinutes: 10,
        minimumNoticeMinutes: 60,
        slotIntervalMinutes: 30,
      }),
    });
    if (created.status !== 201) throw new Error(`config: ${created.status} ${await created.text()}`);
    const configId = ((await created.json()) as { data: { _id: string } }).data._id;
    log(`seeding ${BOOKINGS} bookings for 3 agents…`);
    await seed(orm, ws.workspaceId, configId, agents);

    const from = DateTime.now().setZone(ZONE).plus({ days: 1 });
    const url = `${base}/api/v1/bookings/available-slots?configId=${configId}&startDate=${from.toISODate()}&endDate=${from.plus({ days: 29 }).toISODate()}`;
    let slotCount = 0;
    const samples: number[] = [];
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      const started = performance.now();
      const res = await fetch(url, { headers });
      const body = (await res.json()) as { data: { slots: { start: string; agentIds: string[] }[] } };
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`available-slots: ${res.status} ${JSON.stringify(body)}`);
      slotCount = body.data.slots.length;
      if (i >= WARMUP) samples.push(ms);
    }
    log(
      `available-slots for 30 days (${slotCount} slots), ${ROUNDS} calls: p50 ${fmt(percentile(samples, 50))} ms, p95 ${fmt(percentile(samples, 95))} ms (target ≤ ${TARGET_P95_MS} ms)`,
    );

    // The same computation in-process (no HTTP, auth or envelope), to show where the time goes.
    const direct: number[] = [];
    const wsEm = forkForWorkspace(orm.em, ws.workspaceId);
    const cfg = await wsEm.findOneOrFail(BookingConfig, { _id: configId });
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      const started = performance.now();
      await availableSlots(forkForWorkspace(orm.em, ws.workspaceId), ws.workspaceId, cfg, {
        startDate: from.toISODate()!,
        endDate: from.plus({ days: 29 }).toISODate()!,
      });
      if (i >= WARMUP) direct.push(performance.now() - started);
    }
    log(
      `the same in-process (2 queries + computation): p50 ${fmt(percentile(direct, 50))} ms, p95 ${fmt(percentile(direct, 95))} ms`,
    );

    // The race: the first free slot of the first agent, requested 20 times at once for that agent.
    const slots = (
      (await (await fetch(url, { headers })).json()) as { data: { slots: { start: string; agentIds: string[] }[] } }
    ).data.slots;
    const target = slots.find((s) => s.agentIds.includes(agents[0]!))!;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${base}/api/v1/bookings`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            configId,
            slotStart: target.start,
            selectedAgentId: agents[0],
            attendeeInfo: { name: `Racer ${i}`, email: `racer${i}@bench.test` },
          }),
        }).then((r) => r.status),
      ),
    );
    const accepted = results.filter((s) => s === 201).length;
    const refused = results.filter((s) => s === 409).length;
    const raceOk = accepted === 1 && refused === 19;
    log(
      `race on ${target.start}: ${accepted} accepted, ${refused} refused with 409, others ${results.length - accepted - refused}`,
    );
    process.stdout.write(
      `RESULT slots_p50_ms=${fmt(percentile(samples, 50))} slots_p95_ms=${fmt(percentile(samples, 95))} booking_race_ok=${raceOk}\n`,
    );
  } finally {
    server.close();
    server.closeAllConnections?.();
    await api.close();
    await orm.close(true);
    await db.stack?.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
