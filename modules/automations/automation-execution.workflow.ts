/**
 * One automation execution. Walks the graph snapshot it was started with (edits never change a
 * run in flight): trigger, condition and delay are decided here (deterministic: conditions use
 * workflow time), action/lookup/ai nodes are one activity each (CRM-only actions a local one, from engine
 * version 3), and `finishExecution` writes the in-workflow steps and the final status. Delays are durable
 * timers, exact to the millisecond (not rounded to the spec's 5-minute processor ticks: there is no processor), and
 * survive worker restarts; test runs do not wait.
 */
import {
  ApplicationFailure,
  CancellationScope,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  sleep,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { createAutomationActivities } from './automation.activities';
import type { ExecutionSettings } from './automation.entity';
import { explainConditions, type Condition } from './conditions.pure';
import { conditionDetails, explainBranch } from './condition-explain.pure';
import { topology, type GraphNode, type NodeOutcome } from './topology.pure';
import { delayMsOf, failureMessage, mergeContext, nodeSummary, walkFrom } from './engine/walk.pure';
import { isLocalAction } from './local-actions.pure';
import type { ExecutionWorkflowInput } from './automation-execution.messages';
import {
  FAILURE_TYPES,
  type Context,
  type ExecutionResult,
  type NodeActivityInput,
  type NodeActivityResult,
  type WorkflowStep,
} from './engine/types.pure';

type Activities = ReturnType<typeof createAutomationActivities>;

/** Node types the workflow decides itself (no activity): a retry's `resume` skips them when recorded. */
const WORKFLOW_DECIDED: ReadonlySet<string> = new Set(['trigger', 'condition', 'delay']);

/**
 * Step log and status writes: short, idempotent writes to our own database, so they run as local
 * activities (in the worker that runs the workflow task: no task queue round trip, one marker in
 * the history instead of three activity events) and are retried until they succeed. Runs started
 * before that change (input without engineVersion) recorded them as regular activities and must
 * replay them as such (see the README on changing workflow code).
 */
const BOOKKEEPING_RETRY = { initialInterval: '1 second', maximumInterval: '1 minute' } as const;
const localBookkeeping = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: BOOKKEEPING_RETRY,
});
const remoteBookkeeping = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: BOOKKEEPING_RETRY });

const DEFAULT_SETTINGS: ExecutionSettings = { failureBehavior: 'stop', retryMaxAttempts: 3, retryIntervalMinutes: 5 };

/**
 * retry: retryMaxAttempts attempts, retryIntervalMinutes apart (no backoff). stop/continue: the
 * activity reports action errors as non-retryable, so they fail once; only lost attempts
 * (timeouts after a worker crash) and outages of the CRM's own database are retried, which idempotent
 * steps make safe.
 */
function nodeOptions(
  settings: ExecutionSettings,
  retryIntervalMs: number | undefined,
  extra: Partial<ActivityOptions> = {},
): ActivityOptions {
  if (settings.failureBehavior === 'retry') {
    const interval = retryIntervalMs ?? settings.retryIntervalMinutes * 60_000;
    return {
      startToCloseTimeout: '2 minutes',
      ...extra,
      retry: {
        maximumAttempts: settings.retryMaxAttempts,
        initialInterval: interval,
        maximumInterval: interval,
        backoffCoefficient: 1,
        nonRetryableErrorTypes: [FAILURE_TYPES.permanent],
      },
    };
  }
  // Action errors fail once (non-retryable); lost attempts and database outages are retried for ~2.5 minutes.
  return {
    startToCloseTimeout: '2 minutes',
    ...extra,
    retry: { maximumAttempts: 10, initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
  };
}

/**
 * Node activities heartbeat every 2 s (activities/heartbeat.ts): a worker that dies mid-action is
 * noticed after this long and the attempt is retried on another worker, not after start-to-close.
 */
const NODE_HEARTBEAT_TIMEOUT = '10 seconds';

export async function automationExecutionWorkflow(input: ExecutionWorkflowInput): Promise<ExecutionResult> {
  const engineVersion = input.engineVersion ?? 1;
  const bookkeeping = engineVersion >= 2 ? localBookkeeping : remoteBookkeeping;
  const settings = { ...DEFAULT_SETTINGS, ...(input.graph.executionSettings ?? {}) };
  const actOptions = nodeOptions(settings, input.retryIntervalMs, { heartbeatTimeout: NODE_HEARTBEAT_TIMEOUT });
  // Version 3: CRM-only actions (local-actions.pure.ts) run as local activities, with the same timeout and retries.
  const localOptions = nodeOptions(settings, input.retryIntervalMs);
  const localActs = engineVersion >= 3 ? proxyLocalActivities<Activities>(localOptions) : null;
  // A lookup in mode `all` starts its children from the activity (up to 30 minutes of batches), heartbeating per batch.
  const lookupOptions = nodeOptions(settings, input.retryIntervalMs, {
    startToCloseTimeout: '30 minutes',
    heartbeatTimeout: NODE_HEARTBEAT_TIMEOUT,
  });
  const acts = proxyActivities<Activities>(actOptions);
  const lookups = proxyActivities<Activities>(lookupOptions);
  const topo = topology(input.graph);
  const steps: WorkflowStep[] = [];
  /** One line per condition node decided, for the Web UI (issue 27). */
  const decided: string[] = [];
  let context: Context = input.context;
  let failed: { nodeId: string; error: string } | null = null;
  // Workflow time, but never before the last activity's answer (NodeActivityResult.endedAt: local activities).
  let notBefore = 0;
  const iso = (): string => new Date(Math.max(Date.now(), notBefore)).toISOString();

  const nodeFailed = (node: GraphNode, error: string, startedAt: string, recordedByActivity: boolean): NodeOutcome => {
    steps.push({
      nodeId: node.id,
      nodeType: node.type,
      actionType: typeof node.data?.actionType === 'string' ? node.data.actionType : null,
      status: 'failed',
      startedAt,
      endedAt: iso(),
      error,
      onlyIfMissing: recordedByActivity,
    });
    if (settings.failureBehavior === 'continue') return { handle: null };
    failed = { nodeId: node.id, error };
    return { stop: true };
  };

  const activityNode = async (
    node: GraphNode,
    run: (i: NodeActivityInput) => Promise<NodeActivityResult>,
  ): Promise<NodeOutcome> => {
    const startedAt = iso();
    try {
      const r = await run({
        workspaceId: input.workspaceId,
        executionId: input.executionId,
        automationId: input.automationId,
        nodeId: node.id,
        data: node.data ?? {},
        context,
        isTest: input.isTest,
        actorUserId: input.actorUserId,
        timezone: input.timezone,
        chain: input.chain,
        failureBehavior: settings.failureBehavior,
      });
      context = mergeContext(context, r.contextPatch);
      const answeredAt = r.endedAt ? Date.parse(r.endedAt) : NaN;
      if (answeredAt > notBefore) notBefore = answeredAt;
      // Fan-out: the matches continue in child executions; the parent takes no edge here.
      if (r.handle === 'fanout') return { handle: '\u0000fanout' };
      return { handle: r.handle ?? null };
    } catch (err) {
      if (isCancellation(err)) throw err;
      if (node.type === 'lookup' && topo.outgoing(node.id).some((e) => e.sourceHandle === 'error'))
        return { handle: 'error' };
      return nodeFailed(node, failureMessage(err), startedAt, true);
    }
  };

  const runNode = async (node: GraphNode): Promise<NodeOutcome> => {
    const startedAt = iso();
    const data = node.data ?? {};
    // A retry from the failed step: a node decided in the workflow that the retried run completed keeps its
    // recorded branch (its step row was copied to this run); only retries carry `resume`, so replays are unchanged.
    const recorded = input.resume && WORKFLOW_DECIDED.has(node.type) ? input.resume[node.id] : undefined;
    if (recorded !== undefined) return { handle: recorded };
    switch (node.type) {
      case 'trigger':
        steps.push({
          nodeId: node.id,
          nodeType: 'trigger',
          status: 'completed',
          startedAt,
          endedAt: startedAt,
          output: { triggerType: data.triggerType ?? null },
        });
        return { handle: null };
      case 'condition': {
        try {
          const logic = data.logic === 'or' ? 'or' : 'and';
          const { result, checks } = explainConditions((data.conditions ?? []) as Condition[], logic, context, {
            now: input.now ?? Date.now(),
            timezone: input.timezone,
          });
          const handle = result ? 'true' : 'false';
          steps.push({
            nodeId: node.id,
            nodeType: 'condition',
            status: 'completed',
            startedAt,
            endedAt: iso(),
            input: { logic, conditions: data.conditions },
            output: { result, checks, reason: explainBranch(checks, logic, result) },
            handle,
          });
          // The Web UI's "current details" (workflow metadata query; no command, replays unchanged): no record values.
          const label = typeof data.label === 'string' && data.label ? ` (${data.label.slice(0, 60)})` : '';
          decided.push(`\`${node.id}\`${label} → ${explainBranch(checks, logic, result, { values: false })}`);
          setCurrentDetails(conditionDetails(decided));
          return { handle };
        } catch (err) {
          return nodeFailed(node, failureMessage(err), startedAt, false);
        }
      }
      case 'delay': {
        const ms = delayMsOf(data);
        if (ms === null)
          return nodeFailed(
            node,
            'delay has no valid duration (delayAmount with delayUnit, or an alias such as delayMinutes)',
            startedAt,
            false,
          );
        if (input.isTest) {
          steps.push({
            nodeId: node.id,
            nodeType: 'delay',
            status: 'skipped',
            startedAt,
            endedAt: startedAt,
            input: { ms },
            output: { test: true, wouldWaitMs: ms },
          });
          return { handle: null };
        }
        // The wait begins now (workflow time, deterministic on replay); it ends when the run goes on,
        // which a worker outage or a busy task queue can make later than planned.
        const began = Date.now();
        const until = new Date(began + ms).toISOString();
        // The step log shows the run waiting (and what happened before) for the whole delay.
        await bookkeeping.recordSteps({
          workspaceId: input.workspaceId,
          executionId: input.executionId,
          steps: [
            ...steps,
            { nodeId: node.id, nodeType: 'delay', status: 'running', startedAt, endedAt: null, input: { ms, until } },
          ],
        });
        await sleep(ms, { summary: `${nodeSummary(node)} · until ${until}` });
        steps.push({
          nodeId: node.id,
          nodeType: 'delay',
          status: 'completed',
          startedAt,
          endedAt: iso(),
          input: { ms, until },
          output: { ms, waitedMs: Math.max(0, Date.now() - began) },
        });
        return { handle: null };
      }
      // Each activity is named after its node in the Web UI (user metadata; replay ignores it).
      case 'action':
        if (localActs && isLocalAction(data.actionType))
          return activityNode(node, (i) =>
            localActs.runAction.executeWithOptions({ ...localOptions, summary: nodeSummary(node) }, [i]),
          );
        return activityNode(node, (i) =>
          acts.runAction.executeWithOptions({ ...actOptions, summary: nodeSummary(node) }, [i]),
        );
      case 'ai':
        return activityNode(node, (i) =>
          acts.runAi.executeWithOptions({ ...actOptions, summary: nodeSummary(node) }, [i]),
        );
      case 'lookup':
        return activityNode(node, (i) =>
          lookups.runLookup.executeWithOptions({ ...lookupOptions, summary: nodeSummary(node) }, [i]),
        );
      default:
        return nodeFailed(node, `unknown node type ${node.type}`, startedAt, false);
    }
  };

  try {
    const { ran } = await walkFrom(topo, input.startAt, runNode);
    const failure = failed as { nodeId: string; error: string } | null;
    await bookkeeping.finishExecution({
      workspaceId: input.workspaceId,
      executionId: input.executionId,
      status: failure ? 'failed' : 'completed',
      error: failure ? `${failure.nodeId}: ${failure.error}` : null,
      steps,
    });
    // A failed run fails its workflow too, so operators can filter failures in the Temporal UI.
    if (failure)
      throw ApplicationFailure.nonRetryable(
        `node ${failure.nodeId} failed: ${failure.error}`,
        FAILURE_TYPES.nodeFailed,
      );
    return { status: 'completed', ran };
  } catch (err) {
    if (isCancellation(err)) {
      await CancellationScope.nonCancellable(() =>
        bookkeeping.finishExecution({
          workspaceId: input.workspaceId,
          executionId: input.executionId,
          status: 'cancelled',
          error: 'cancelled',
          steps,
        }),
      );
    }
    throw err;
  }
}
