/**
 * The run starter (worker process): starts the workflows of `queued` executions in batches. The
 * queued rows are the queue: a batch is claimed in one statement (FOR UPDATE SKIP LOCKED, a lease,
 * the automation's totalRuns brought up to date), its workflows are started with their
 * deterministic ids (a repeat is `already_started`), then the rows say `running`. Woken by NOTIFY
 * on commit (eager); a slow poll is only the fallback. A starter that dies leaves its claims to
 * expire and be taken over: nothing lost, nothing started twice.
 */
import { createOutboxListener, type OutboxListener } from '../../outbox/listener';
import { forkForWorkspace } from '../../orm/tenant';
import { mapLimited } from '../../shared/concurrency';
import { isRpcUnavailable } from '../../shared/unavailable';
import type { GraphSnapshot } from './types';
import type { EngineDeps } from './ports';
import { queuedRuns, START_QUEUE_CHANNEL } from './queue-signal';
import { startWorkflowFor, type StartableRow } from './start';
import { automationActorId, workspaceInfo } from './workspace';

const BATCH = 200;
const START_CONCURRENCY = 32;
const LEASE_S = 15;
const POLL_MS = 5_000;
/** After the engine refused starts as unavailable: wait before claiming again (the lease also holds). */
const UNAVAILABLE_PAUSE_MS = 1_000;

interface ClaimedRow {
  id: string;
  workspace_id: string;
  automation_id: string;
  automation_name: string;
  graph: GraphSnapshot;
  context: Record<string, unknown>;
  is_test: boolean;
  trigger_type: string;
  entity_type: string | null;
  entity_id: string | null;
  workflow_id: string;
  created_by: string | null;
}

/** One statement: claim, lease, and add the claimed runs not yet counted to their automation's totalRuns. */
const claimSql = (scoped: boolean): string => `with c as (
    select id, run_counted from automation_execution
     where status = 'queued' and (start_lease_until is null or start_lease_until < now())
       ${scoped ? 'and workspace_id in (?)' : ''}
     order by id limit ? for update skip locked),
  u as (
    update automation_execution e set start_lease_until = now() + make_interval(secs => ?), run_counted = true
      from c where e.id = c.id
    returning e.id, e.workspace_id, e.automation_id, e.automation_name, e.graph, e.context, e.is_test,
      e.trigger_type, e.entity_type, e.entity_id, e.workflow_id, c.run_counted as was_counted),
  t as (
    update automation a set total_runs = a.total_runs + x.n
      from (select automation_id, count(*)::int as n from u where not was_counted group by automation_id) x
     where a.id = x.automation_id)
  select u.*, a.created_by from u left join automation a on a.id = u.automation_id order by u.id`;

export interface RunStarter {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Claims and starts until nothing is queued (tests, benches); resolves with the number started. */
  drain(): Promise<number>;
}

export interface RunStarterOptions {
  /** Postgres connection string for the LISTEN connection; without it only in-process signals and the poll wake it. */
  connectionString?: string;
  /** Only these workspaces (tests, benches); all when unset. */
  workspaceIds?: () => readonly string[] | undefined;
  pollMs?: number;
}

export function createRunStarter(deps: EngineDeps, opts: RunStarterOptions = {}): RunStarter {
  const log = deps.log.child({ component: 'run-starter' });
  let listener: OutboxListener | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = true;
  let running: Promise<number> | null = null;
  let again = false;

  const claim = async (): Promise<ClaimedRow[]> => {
    const scope = opts.workspaceIds?.();
    if (scope && !scope.length) return [];
    const params = scope ? [[...scope], BATCH, LEASE_S] : [BATCH, LEASE_S];
    return deps.orm.em.getConnection().execute<ClaimedRow[]>(claimSql(Boolean(scope)), params);
  };

  /** Starts one claimed batch; false when the engine was unavailable (the rows stay queued). */
  const startBatch = async (rows: ClaimedRow[]): Promise<{ started: string[]; unavailable: boolean }> => {
    const actors = new Map<string, Promise<string>>();
    const zones = new Map<string, Promise<string>>();
    let unavailable = false;
    const started: string[] = [];
    await mapLimited(rows, START_CONCURRENCY, async (r) => {
      try {
        const em = forkForWorkspace(deps.orm.em, r.workspace_id);
        if (!zones.has(r.workspace_id))
          zones.set(
            r.workspace_id,
            workspaceInfo(em, r.workspace_id).then((w) => w.timezone),
          );
        if (!actors.has(r.automation_id)) actors.set(r.automation_id, automationActorId(em, r.created_by));
        const row: StartableRow = {
          _id: r.id,
          workspaceId: r.workspace_id,
          automationId: r.automation_id,
          graph: r.graph,
          context: r.context,
          isTest: r.is_test,
          triggerType: r.trigger_type,
          entityType: r.entity_type,
          entityId: r.entity_id,
          parentExecutionId: null,
        };
        const meta = {
          automationName: r.automation_name,
          actorUserId: await actors.get(r.automation_id)!,
          timezone: await zones.get(r.workspace_id)!,
        };
        await startWorkflowFor(deps, row, meta, { retryable: true });
        started.push(r.id);
      } catch (err) {
        if (isRpcUnavailable(err)) {
          unavailable = true;
          return;
        }
        // A refused start (not an outage) would be refused again: the run fails, saying why.
        log.error({ err, executionId: r.id }, 'run start refused');
        await deps.orm.em
          .getConnection()
          .execute(
            `update automation_execution set status = 'failed', error = ?, finished_at = now(), updated_at = now(), start_lease_until = null where id = ? and status = 'queued'`,
            [`could not start the workflow: ${(err instanceof Error ? err.message : String(err)).slice(0, 500)}`, r.id],
          )
          .catch((e: unknown) => log.error({ err: e, executionId: r.id }, 'marking a refused start failed'));
      }
    });
    return { started, unavailable };
  };

  /** Rows whose workflow started say so; one cancelled meanwhile gets its workflow cancelled. */
  const markStarted = async (rows: ClaimedRow[], ids: string[]): Promise<void> => {
    if (!ids.length) return;
    const conn = deps.orm.em.getConnection();
    const flipped = await conn.execute<{ id: string }[]>(
      `update automation_execution set status = 'running', start_lease_until = null, updated_at = now()
        where id in (?) and status = 'queued' returning id`,
      [ids],
    );
    if (flipped.length === ids.length) return;
    const done = new Set(flipped.map((f) => f.id));
    const rest = ids.filter((id) => !done.has(id));
    const cancelled = await conn.execute<{ id: string }[]>(
      `select id from automation_execution where id in (?) and status = 'cancelled'`,
      [rest],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const c of cancelled)
      await deps.workflows.cancel(byId.get(c.id)!.workflow_id).catch((err: unknown) => {
        log.warn({ err, executionId: c.id }, 'cancelling a run cancelled while it started failed');
      });
  };

  const loop = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      again = false;
      const rows = await claim();
      if (!rows.length) {
        if (again) continue;
        return total;
      }
      const { started, unavailable } = await startBatch(rows);
      await markStarted(rows, started);
      total += started.length;
      if (unavailable) {
        log.warn({ waiting: rows.length - started.length }, 'workflow engine unavailable: queued runs wait');
        await new Promise((r) => setTimeout(r, UNAVAILABLE_PAUSE_MS));
        return total;
      }
    }
  };

  const run = (): Promise<number> => {
    if (running) {
      again = true;
      return running;
    }
    running = loop()
      .catch((err: unknown) => {
        log.error({ err }, 'run starter pass failed; the next wake retries');
        return 0;
      })
      .finally(() => {
        running = null;
        if (again && !stopped) void run();
      });
    return running;
  };

  const onQueued = (): void => {
    if (!stopped) void run();
  };

  return {
    async start() {
      stopped = false;
      queuedRuns.on('queued', onQueued);
      if (opts.connectionString) {
        listener = createOutboxListener({
          connectionString: opts.connectionString,
          applicationName: 'crm-run-starter',
          channel: START_QUEUE_CHANNEL,
          log,
          onWake: onQueued,
        });
        await listener.start();
      }
      timer = setInterval(onQueued, opts.pollMs ?? POLL_MS);
      timer.unref();
      void run();
    },
    async stop() {
      stopped = true;
      queuedRuns.off('queued', onQueued);
      if (timer) clearInterval(timer);
      await listener?.stop();
      await running?.catch(() => undefined);
    },
    async drain() {
      let n = 0;
      while (running) n += await running;
      return n + (await run());
    },
  };
}
