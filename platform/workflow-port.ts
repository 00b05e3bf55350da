/**
 * The one port between the domain and the workflow engine (domain/ never imports Temporal at run
 * time, house rule 2). Every workflow kind of domain/workflow-kinds.ts goes through it; the Temporal
 * adapter is temporal/workflow-client.ts. Starts take the kind and its typed input; signals, updates
 * and queries take the descriptors of the kind's `<kind>.messages.ts` (never a name), so the
 * arguments and results are typed end to end. Also home of the shared "row first, then start
 * idempotently, map a refused start" step (startForRow).
 */
import type { defineUpdate, QueryDefinition, SignalDefinition } from '@temporalio/workflow';
import { DomainError } from './errors';
import { isRpcUnavailable } from './shared/unavailable';
import type { Logger } from './logger';
import type { SearchAttributes, WorkflowKind } from './workflow-kinds';

/** What `defineUpdate<R, Args>(name)` returns (@temporalio/workflow exports no name for that type). */
export type UpdateDefinition<R, Args extends unknown[]> = ReturnType<typeof defineUpdate<R, Args>>;

/** Temporal's weekday names (its TypeScript SDK's), Sunday first as in cron. */
export type DayOfWeekName = 'SUNDAY' | 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY';

/** A calendar entry of a schedule spec (structurally the SDK's; modules/automations/schedule.ts builds them). */
export interface CalendarEntry {
  minute: number;
  /** '*' for hourly: Temporal's default hour is 0, not every hour. */
  hour: number | '*';
  dayOfWeek?: DayOfWeekName;
  dayOfMonth?: number;
  comment: string;
}

/** Assignable to `ScheduleSpec` of @temporalio/client. */
export interface ScheduleSpecData {
  /** An ms-style duration such as '15m' (Temporal's `Duration`). */
  intervals?: { every: `${number}m` }[];
  calendars?: CalendarEntry[];
  timezone?: string;
}

export interface WorkflowStartRequest<Meta, Input> {
  kind: WorkflowKind<Meta, Input>;
  workspaceId: string;
  /** The row the workflow runs for (execution, enrollment, …): the id is `<kind>:<workspaceId>:<id>`. */
  id: string;
  /** The kind's input: one serializable object of ids and snapshots (house rule 6), never secrets. */
  input: NoInfer<Input>;
  /** What the kind's search attributes, memo and summary are built from. */
  meta: Meta;
  /**
   * `backlog`: a run of a workspace with a backlog of queued runs (the starter, automations/engine/starter.ts); it
   * goes to the backlog task queue when the port has one (`TEMPORAL_BACKLOG_TASK_QUEUE`, served by the backlog
   * worker at a lower CPU priority), so that one workspace's burst does not hold back other workspaces' runs in the
   * main worker. Default `main`. docs/automations.md "Fair sharing between workspaces".
   */
  lane?: 'main' | 'backlog';
}

export interface ScheduleUpsertRequest<Meta, Input> {
  scheduleId: string;
  /** Intervals and calendar entries in a time zone (the shape the Temporal client takes). */
  spec: ScheduleSpecData;
  /**
   * Each action starts this kind's workflow with id `kind.workflowId(workspaceId, id)` (+ the time Temporal appends).
   */
  kind: WorkflowKind<Meta, Input>;
  workspaceId: string;
  id: string;
  input: NoInfer<Input>;
  meta: Meta;
}

export type WorkflowRunStatus =
  'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'continued_as_new' | 'unknown';

export interface WorkflowDescription {
  workflowId: string;
  runId: string;
  workflowType: string;
  status: WorkflowRunStatus;
  startTime: Date;
  closeTime: Date | null;
  searchAttributes: SearchAttributes;
  memo: Record<string, unknown>;
  summary: string | null;
  details: string | null;
}

export interface WorkflowPort {
  /** Starts the kind's workflow; an already started (or finished) one with that id is success. */
  start<Meta, Input>(req: WorkflowStartRequest<Meta, Input>): Promise<'started' | 'already_started'>;
  /**
   * Whether starts on the `backlog` lane go to a backlog worker now (the port has a backlog task queue and a worker
   * polls it); absent or false: every start goes to the main queue.
   */
  backlogLane?(): Promise<boolean>;
  /** Sends a signal; false when no running workflow has that id. */
  signal<Args extends unknown[]>(
    workflowId: string,
    signal: SignalDefinition<Args>,
    ...args: NoInfer<Args>
  ): Promise<boolean>;
  /** Runs an update and returns its result (a rejected update throws a validation DomainError). */
  update<R, Args extends unknown[]>(
    workflowId: string,
    update: UpdateDefinition<R, Args>,
    ...args: NoInfer<Args>
  ): Promise<R>;
  /**
   * Runs an update the API caller waits for, within the port's deadline. When the engine does not
   * answer in time (no worker, server slow or down) the same command goes as `cmd.signal` (durable
   * at once, no worker needed) and this throws 503 `unavailable` saying whether it was recorded;
   * the workflow applies the update and the signal with one `cmd.id` once (engineCommandRecorded).
   */
  command<R, A extends CommandArg>(workflowId: string, cmd: EngineCommand<R, A>): Promise<R>;
  /** Runs a query (read-only); not_found DomainError when the workflow does not exist. */
  query<R, Args extends unknown[]>(
    workflowId: string,
    query: QueryDefinition<R, Args>,
    ...args: NoInfer<Args>
  ): Promise<R>;
  /** Requests cancellation; false when no such running workflow exists. */
  cancel(workflowId: string): Promise<boolean>;
  /** Status, summary, memo and search attributes; null when no workflow has that id. */
  describe(workflowId: string): Promise<WorkflowDescription | null>;
  upsertSchedule<Meta, Input>(req: ScheduleUpsertRequest<Meta, Input>): Promise<'created' | 'updated'>;
  /** False when there was no schedule. */
  deleteSchedule(scheduleId: string): Promise<boolean>;
  /** Ids of the schedules on the server whose id starts with `prefix:` (visibility: a new one may lag). */
  listScheduleIds(prefix: string): Promise<string[]>;
}

/** What the update of a command takes: its arguments and the command's id. */
export interface CommandArg {
  commandId?: string;
}

/** One update an API caller waits for, with its durable twin (a signal the workflow dedupes on `id`). */
export interface EngineCommand<R, A extends CommandArg> {
  /** Update id and the signal's `commandId`: the same request (Idempotency-Key) keeps the same id. */
  id: string;
  /** Receives `{ ...arg, commandId: id }`. */
  update: UpdateDefinition<R, [A]> | UpdateDefinition<R, [A?]>;
  /** Receives `{ ...arg, commandId: id, name: update.name }` (one signal may stand for several updates). */
  signal: SignalDefinition<[NoInfer<A> & { commandId: string; name: string }]>;
  arg?: NoInfer<Omit<A, 'commandId'>>;
  /** What the 503 message says was asked, e.g. "the approval". */
  what: string;
}

/**
 * The 503 of a command that did not complete in time. `recorded: true`: the engine holds it and it
 * takes effect once when a worker runs it (a retry with the same Idempotency-Key then returns the
 * outcome); false: nothing was recorded, retry.
 */
export function engineCommandUnavailable(what: string, recorded: boolean): DomainError {
  return new DomainError(
    'unavailable',
    recorded
      ? `the workflow engine did not confirm ${what} in time; it is recorded and takes effect once when the engine's worker runs it (retry with the same Idempotency-Key to get the outcome)`
      : `the workflow engine is unavailable: ${what} was not recorded; retry later`,
    { recorded },
  );
}

const errText = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 500);

export interface StartForRowOptions {
  log: Logger;
  /**
   * Callers that retry (outbox subscribers, activities) rethrow a refused start as is, keeping the
   * row as it is so their retry starts the same row; interactive callers (the API) pass false.
   */
  retryable: boolean;
  /** Records on the row why it did not start (called only when not retryable). */
  markNotStarted(reason: string): Promise<void>;
  /** What the 503 says could not be started, e.g. "the automation run". */
  what: string;
}

/**
 * The shared start step of every kind: the caller has committed its row; the workflow start is
 * idempotent on the deterministic id (a repeat is `already_started`). A refused start either
 * propagates (retrying callers) or marks the row and becomes a 503 `upstream_failed`.
 */
export async function startForRow<Meta, Input>(
  port: WorkflowPort,
  req: WorkflowStartRequest<Meta, Input>,
  opts: StartForRowOptions,
): Promise<'started' | 'already_started'> {
  try {
    return await port.start(req);
  } catch (err) {
    if (opts.retryable) throw err;
    // API starts fail fast (short RPC deadline); the row stays, marked, saying why nothing ran.
    const down = isRpcUnavailable(err);
    const why = down
      ? 'the workflow engine (Temporal) is unavailable or did not answer in time; nothing ran, retry'
      : errText(err);
    await opts.markNotStarted(`could not start the workflow: ${why} (${errText(err)})`.slice(0, 1000));
    opts.log.error({ err, workflowId: req.kind.workflowId(req.workspaceId, req.id) }, 'workflow start failed');
    if (down)
      throw new DomainError(
        'unavailable',
        `could not start ${opts.what}: the workflow engine is unavailable; retry later`,
      );
    throw new DomainError('upstream_failed', `could not start ${opts.what}: the workflow engine refused the start`);
  }
}
