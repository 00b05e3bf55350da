// The bare side of the automations benchmark: a workflow (bare.workflow.ts) with as many small Postgres inserts as
// an execution runs activities, started and timed the same way as the engine's runs.
import type { Client } from '@temporalio/client';
import type pg from 'pg';
import { newId } from '../platform/ids';
import type { bareWorkflow } from './bare.workflow';
import { figures, paced, percentile, type Figures, type Latencies } from './stats';

/** Where bare runs start and record their steps: `table` holds (run_id, step, done_at). */
export interface BareSetup {
  client: Client;
  pool: pg.Pool;
  taskQueue: string;
  steps: number;
  table: string;
}

/** Starts one bare run (`steps` activities, eagerly like the engine's starts); `done` settles when it completes. */
async function startBare(setup: BareSetup, runId: string): Promise<{ done: Promise<number> }> {
  const handle = await setup.client.workflow.start<typeof bareWorkflow>('bareWorkflow', {
    workflowId: `bench-bare-${runId}`,
    taskQueue: setup.taskQueue,
    args: [{ runId, steps: setup.steps }],
    requestEagerStart: true,
  });
  return { done: handle.result() };
}

/** Starts `count` bare workflows, `concurrency` at a time; completion = the last activity's insert. */
export async function measureBare(setup: BareSetup, count: number, concurrency: number): Promise<Figures> {
  const started = new Map<string, number>();
  const handles: Promise<number>[] = [];
  let next = 0;
  const starter = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      const runId = newId();
      started.set(runId, Date.now());
      handles.push((await startBare(setup, runId)).done);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, starter));
  await Promise.all(handles);
  const { rows } = await setup.pool.query<{ run_id: string; done_at: Date }>(
    `select run_id, max(done_at) as done_at from ${setup.table} where run_id = any($1) group by run_id`,
    [[...started.keys()]],
  );
  if (rows.length !== count) throw new Error(`expected ${count} bare runs, found ${rows.length}`);
  return figures(
    rows.map((r) => started.get(r.run_id)!),
    rows.map((r) => r.done_at.getTime()),
  );
}

/** Starts `count` bare workflows one every `intervalMs`; start → first activity and start → done. */
export async function measureBarePaced(setup: BareSetup, count: number, intervalMs: number): Promise<Latencies> {
  const started = new Map<string, number>();
  const handles: Promise<number>[] = [];
  await paced(count, intervalMs, async () => {
    const runId = newId();
    started.set(runId, Date.now());
    handles.push((await startBare(setup, runId)).done);
  });
  await Promise.all(handles);
  const { rows } = await setup.pool.query<{ run_id: string; first_at: Date; done_at: Date }>(
    `select run_id, min(done_at) as first_at, max(done_at) as done_at from ${setup.table} where run_id = any($1) group by run_id`,
    [[...started.keys()]],
  );
  const done = rows.map((r) => r.done_at.getTime() - started.get(r.run_id)!);
  const first = rows.map((r) => r.first_at.getTime() - started.get(r.run_id)!);
  return {
    p50: percentile(done, 50),
    p95: percentile(done, 95),
    firstActionP50: percentile(first, 50),
    firstActionP95: percentile(first, 95),
  };
}
