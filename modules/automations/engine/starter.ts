/**
 * The automation runs' queue of the starter (platform/intake/starter.ts): `queued` executions are
 * claimed in one statement (FOR UPDATE SKIP LOCKED, a lease, the automation's totalRuns brought up
 * to date), started with their deterministic workflow ids, then they say `running`.
 */
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { fairClaim } from '../../../platform/intake/fair-pick';
import {
  createStarter,
  type RunStarter,
  type RunStarterOptions,
  type StartQueue,
} from '../../../platform/intake/starter';
import type { GraphSnapshot } from './types.pure';
import type { EngineDeps } from './ports';
import { startWorkflowFor, type StartableRow } from './start';
import { backlogCapOf, beyondCapSql, roomSql } from './in-flight';
import { automationActorId, workspaceInfo } from './workspace';

export type { RunStarter, RunStarterOptions } from '../../../platform/intake/starter';

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
  /** More of the workspace's runs stay queued behind this claim: the run goes to the backlog lane. */
  backlog: boolean;
}

/**
 * One statement: claim (in turns per workspace, intake/fair-pick.ts), lease, and add the claimed runs not yet counted
 * to their automation's totalRuns. Bindings: the pick's, then the lease seconds. A claimed run goes to the backlog lane
 * when more of its workspace's runs stay queued behind the claim, or when `spill` (an SQL condition on `u`) holds.
 */
const claimSql = (pick: string, spill: string): string => `${pick},
  c as (select e.id, e.run_counted from automation_execution e where e.id in (select id from picked)),
  u as (
    update automation_execution e set start_lease_until = now() + make_interval(secs => ?), run_counted = true
      from c where e.id = c.id
    returning e.id, e.workspace_id, e.automation_id, e.automation_name, e.graph, e.context, e.is_test,
      e.trigger_type, e.entity_type, e.entity_id, e.workflow_id, c.run_counted as was_counted),
  t as (
    update automation a set total_runs = a.total_runs + x.n
      from (select automation_id, count(*)::int as n from u where not was_counted group by automation_id) x
     where a.id = x.automation_id)
  select u.*, a.created_by,
    (exists (select 1 from automation_execution q where q.workspace_id = u.workspace_id and q.status = 'queued'
      and q.id not in (select id from picked)) or ${spill}) as backlog
    from u left join automation a on a.id = u.automation_id order by u.id`;

/** Queued automation executions. */
export function automationRunQueue(deps: EngineDeps): StartQueue<ClaimedRow> {
  const conn = () => deps.orm.em.getConnection();
  const limit = deps.inFlight?.cap ? deps.inFlight : undefined;
  // While a backlog worker serves the backlog lane, a workspace's runs beyond the main cap go there, up to the
  // backlog lane's cap (in-flight.ts backlogCapOf): the main worker still holds at most `cap` of them.
  let wide = false;
  const claim = fairClaim(
    (sql, params) => conn().execute<ClaimedRow[]>(sql, params),
    {
      table: 'automation_execution',
      queued: "t.status = 'queued'",
      claimable: "t.status = 'queued' and (t.start_lease_until is null or t.start_lease_until < now())",
      // Only into each workspace's free room under its cap on runs in flight (in-flight.ts).
      ...(limit ? { room: (ws: string) => roomSql(ws, limit, wide) } : {}),
    },
    (pick) =>
      claimSql(
        pick,
        wide && limit ? beyondCapSql('u.workspace_id', 'count(*) over (partition by u.workspace_id)', limit) : 'false',
      ),
  );
  return {
    name: 'run',
    async claim(scope, n, leaseS) {
      wide = !!limit && backlogCapOf(limit) > limit.cap && (await deps.workflows.backlogLane?.()) === true;
      return claim(scope, n, leaseS);
    },
    starter() {
      const actors = new Map<string, Promise<string>>();
      const zones = new Map<string, Promise<string>>();
      return {
        async start(r) {
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
          // A workspace with a backlog runs it on the backlog lane (the backlog worker, when one polls), so that its
          // burst does not hold back other workspaces' runs in the main worker (WorkflowStartRequest.lane).
          await startWorkflowFor(deps, row, meta, { retryable: true, lane: r.backlog ? 'backlog' : 'main' });
        },
      };
    },
    async refused(r, reason) {
      await conn().execute(
        `update automation_execution set status = 'failed', error = ?, finished_at = now(), updated_at = now(), start_lease_until = null where id = ? and status = 'queued'`,
        [reason, r.id],
      );
    },
    /** Rows whose workflow started say so; one cancelled meanwhile gets its workflow cancelled. */
    async markStarted(rows, ids) {
      if (!ids.length) return;
      const flipped = await conn().execute<{ id: string }[]>(
        `update automation_execution set status = 'running', start_lease_until = null, updated_at = now()
          where id in (?) and status = 'queued' returning id`,
        [ids],
      );
      if (flipped.length === ids.length) return;
      const done = new Set(flipped.map((f) => f.id));
      const rest = ids.filter((id) => !done.has(id));
      const cancelled = await conn().execute<{ id: string }[]>(
        `select id from automation_execution where id in (?) and status = 'cancelled'`,
        [rest],
      );
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const c of cancelled)
        await deps.workflows.cancel(byId.get(c.id)!.workflow_id).catch((err: unknown) => {
          deps.log.warn({ err, executionId: c.id }, 'cancelling a run cancelled while it started failed');
        });
    },
  };
}

/**
 * The starter with the automation runs' queue and any `queues` besides (the worker adds the
 * sequence enrollments' one, modules/sequences/start-queue.ts).
 */
export function createRunStarter(
  deps: EngineDeps,
  opts: RunStarterOptions & { queues?: StartQueue[] } = {},
): RunStarter {
  return createStarter(
    deps.log.child({ component: 'run-starter' }),
    [automationRunQueue(deps), ...(opts.queues ?? [])],
    opts,
  );
}
