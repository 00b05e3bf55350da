/**
 * Fair claims of queued starts (the starter's queues): the rows are picked in turns per workspace, as the outbox
 * claims its events (domain/outbox/outbox.sql.ts), so one workspace's burst of thousands of queued runs does not
 * hold back another workspace's next start by more than one batch. Up to FAIR_PICK_WORKSPACES workspaces per claim,
 * found by a skip scan over a partial `(workspace_id, id)` index of the queued rows (one probe per workspace),
 * starting after the cursor (the workspace the previous claim served last) and wrapping around, so that a wider
 * backlog is served in rotation; each workspace's oldest rows are taken in turns (the first of each, then the
 * second of each, …) up to the limit. A workspace alone fills whole batches.
 */

/** Workspaces one claim serves at most. */
export const FAIR_PICK_WORKSPACES = 8;

export interface FairPickOptions {
  /** The table (alias `t` in the conditions). */
  table: string;
  /** What makes a row claimable, in terms of alias `t` (queued and not leased). */
  claimable: string;
  /** What makes a row queued at all (the partial index's predicate), in terms of alias `t`. */
  queued: string;
  /** Only these workspaces (tests, benches); all when unset. */
  scope?: readonly string[];
  /** The workspace the previous claim served last ('' at first). */
  cursor: string;
  limit: number;
  /**
   * At most this many rows of workspace `ws` (an SQL expression of the caller, a constant, never input): its free
   * room under a cap on starts in flight (automations/engine/in-flight.ts); unlimited when unset.
   */
  room?: (ws: string) => string;
}

/**
 * The CTEs (`with recursive …, picked(id)`) choosing the rows, with their `?` bindings in order; the claim statement
 * follows with `, …` CTEs that lock-free read `picked` (the rows are locked FOR UPDATE SKIP LOCKED here).
 */
export function fairPickSql(o: FairPickOptions): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const scope = (): string => {
    if (!o.scope) return '';
    params.push([...o.scope]);
    return 'and t.workspace_id in (?)';
  };
  const next = (bound: (bind: (v: unknown) => string) => string): string => {
    const s = scope();
    const b = bound((v) => {
      params.push(v);
      return '?';
    });
    return `(select t.workspace_id from ${o.table} t where ${o.queued} ${s} and ${b} order by t.workspace_id limit 1)`;
  };
  const afterFirst = next((bind) => `t.workspace_id > ${bind(o.cursor)}`);
  const afterNext = next(() => 't.workspace_id > after.w');
  const wrappedFirst = next((bind) => `t.workspace_id <= ${bind(o.cursor)}`);
  const wrappedNext = next((bind) => `t.workspace_id > wrapped.w and t.workspace_id <= ${bind(o.cursor)}`);
  params.push(o.limit, o.limit);
  const sql = `with recursive
    after(w, n) as (
      select ${afterFirst}, 1
      union all
      select ${afterNext}, n + 1 from after where after.w is not null and n < ${FAIR_PICK_WORKSPACES}),
    wrapped(w, n) as (
      select ${wrappedFirst}, 1
      union all
      select ${wrappedNext}, n + 1 from wrapped where wrapped.w is not null and n < ${FAIR_PICK_WORKSPACES}),
    ws as (
      select w from (select w, n from after where w is not null union all select w, 1000 + n from wrapped where w is not null) x
      order by n limit ${FAIR_PICK_WORKSPACES}),
    picked as (
      select c.id from (
        select p.id, row_number() over (partition by ws.w order by p.id) as turn
        from ws cross join lateral (
          select t.id from ${o.table} t where t.workspace_id = ws.w and ${o.claimable}
          order by t.id limit ${o.room ? `least(?, ${o.room('ws.w')})` : '?'} for update skip locked) p
      ) c
      order by c.turn, c.id limit ?)`;
  return { sql, params };
}

/** The cursor after a claim: the greatest workspace id it served (unchanged when it claimed nothing). */
export function nextCursor(cursor: string, rows: readonly { workspace_id: string }[]): string {
  let last = '';
  for (const r of rows) if (r.workspace_id > last) last = r.workspace_id;
  return last || cursor;
}

/**
 * A queue's `claim` (StartQueue.claim) by fair pick: the pick's CTEs, then the queue's own claim statement
 * (`claimSql(pick)`, its bindings: the pick's, then the lease seconds), the cursor carried from one claim to the next.
 */
export function fairClaim<R extends { workspace_id: string }>(
  execute: (sql: string, params: unknown[]) => Promise<R[]>,
  pick: Omit<FairPickOptions, 'scope' | 'cursor' | 'limit'>,
  claimSql: (pick: string) => string,
): (scope: readonly string[] | undefined, limit: number, leaseS: number) => Promise<R[]> {
  let cursor = '';
  return async (scope, limit, leaseS) => {
    const { sql, params } = fairPickSql({ ...pick, scope, cursor, limit });
    const rows = await execute(claimSql(sql), [...params, leaseS]);
    cursor = nextCursor(cursor, rows);
    return rows;
  };
}
