/**
 * Fair sharing of the engine between workspaces (issue 27): a cap on each workspace's runs in flight, so that one
 * workspace's burst never fills the Temporal task queues, the worker's slots and its workflow cache with thousands of
 * runs that every other workspace's next run would wait behind. A run is in flight from its workflow start until it
 * finishes, or until `windowS` after its start (a run parked on a long delay, or stuck in a slow step, stops
 * counting), and while the starter holds its start lease. Record events beyond the cap record their runs as `queued`
 * (outbox subscriber, subscribers.ts); the starter (starter.ts) starts a workspace's queued runs only into its free
 * room, woken when a run finishes (the finishExecution activity), and serves the workspaces in turns
 * (intake/fair-pick.ts). docs/automations.md "Fair sharing between workspaces".
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../../platform/config';

export interface InFlightLimit {
  /** Runs in flight per workspace (config AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE); 0: no cap. */
  cap: number;
  /**
   * Runs in flight per workspace while its queued runs go to the backlog lane, served by the backlog worker apart
   * from the main worker (config AUTOMATION_MAX_IN_FLIGHT_BACKLOG); at most `cap`: none beyond the cap.
   */
  backlogCap?: number;
  /** Seconds after its start a running run stops counting (config AUTOMATION_IN_FLIGHT_WINDOW_S). */
  windowS: number;
}

/** The configured limit (AUTOMATION_MAX_IN_FLIGHT_PER_WORKSPACE, AUTOMATION_IN_FLIGHT_WINDOW_S). */
export const inFlightLimit = (
  config: Pick<
    AppConfig,
    'automationMaxInFlightPerWorkspace' | 'automationMaxInFlightBacklog' | 'automationInFlightWindowS'
  >,
): InFlightLimit => ({
  cap: config.automationMaxInFlightPerWorkspace,
  backlogCap: config.automationMaxInFlightBacklog,
  windowS: config.automationInFlightWindowS,
});

/**
 * The rows of workspace `ws` (an SQL expression) that take room, in terms of alias `r`; `withBacklog` counts every
 * queued run too (an event behind a backlog queues behind it), else only those the starter is starting (leased).
 * Both numbers are integers the caller validated (config), never input.
 */
function takingRoom(ws: string, limit: InFlightLimit, withBacklog: boolean, cap = limit.cap): string {
  const window = Math.max(1, Math.floor(limit.windowS));
  const queued = withBacklog ? "r.status = 'queued'" : "(r.status = 'queued' and r.start_lease_until > now())";
  return `select 1 from automation_execution r where r.workspace_id = ${ws}
    and ((r.status = 'running' and r.updated_at > now() - interval '${window} seconds') or ${queued})
    limit ${Math.max(1, Math.floor(cap))}`;
}

/** The cap while the workspace's queued runs go to the backlog lane: `backlogCap`, never below `cap`. */
export const backlogCapOf = (limit: InFlightLimit): number => Math.max(limit.cap, limit.backlogCap ?? 0);

/**
 * The starter's room for workspace `ws` (an SQL expression of the fair pick, e.g. `ws.w`): the cap minus the runs in
 * flight; `onBacklogLane`: the backlog lane's cap (backlogCapOf).
 */
export function roomSql(ws: string, limit: InFlightLimit, onBacklogLane = false): string {
  const cap = onBacklogLane ? backlogCapOf(limit) : limit.cap;
  return `greatest(0, ${Math.floor(cap)} - (select count(*)::int from (${takingRoom(ws, limit, false, cap)}) x))`;
}

/**
 * Whether a run the starter claims for workspace `ws` (an SQL expression of the claim statement) goes beyond the
 * main cap: the workspace's runs in flight before the claim plus `claimed` (an SQL expression: its runs in this claim)
 * exceed `cap`. Such a run goes to the backlog lane.
 */
export function beyondCapSql(ws: string, claimed: string, limit: InFlightLimit): string {
  return `(select count(*)::int from (${takingRoom(ws, limit, false)}) x) + ${claimed} > ${Math.floor(limit.cap)}`;
}

/**
 * How many of a workspace's new runs may start at once (outbox subscriber): the cap minus its runs in flight and its
 * queued ones. Infinity without a cap.
 */
export async function startRoom(
  em: EntityManager,
  workspaceId: string,
  limit: InFlightLimit | undefined,
): Promise<number> {
  if (!limit || limit.cap <= 0) return Number.POSITIVE_INFINITY;
  const [row] = await em
    .getConnection()
    .execute<{ n: number }[]>(`select count(*)::int as n from (${takingRoom('?', limit, true)}) x`, [workspaceId]);
  return Math.max(0, limit.cap - (row?.n ?? 0));
}
