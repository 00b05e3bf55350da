/**
 * Cancel: the execution and its fan-out descendants are marked `cancelled` first (so a fan-out
 * still running starts no further children: they check their parent's status under a share
 * lock), then their workflows are asked to cancel; each records its steps on the way out.
 * A parent that already completed (lookup `all` lets it finish at once) can still be cancelled
 * while children of it run: that cancels the children.
 */
import { DomainError, notFound } from '../../../platform/errors';
import { engineCommandUnavailable } from '../../../platform/workflow-port';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { mapLimited } from '../../../platform/shared/concurrency';
import { AutomationExecution } from '../automation.entity';
import { executionStatusTransitions } from '../automations.rules';
import type { EngineDeps } from './ports';

const MAX_DEPTH = 5;
const CANCEL_CONCURRENCY = 10;

const MARK_CANCELLED = `status = 'cancelled', error = coalesce(error, 'cancelled'), finished_at = now(), updated_at = now(),
  duration_ms = least(2147483647, (extract(epoch from (now() - started_at)) * 1000)::bigint)`;

export async function cancelExecution(
  deps: EngineDeps,
  workspaceId: string,
  executionId: string,
): Promise<{ cancelled: true; childrenCancelled: number }> {
  const em = forkForWorkspace(deps.orm.em, workspaceId);
  const found = await em.findOne(AutomationExecution, { _id: executionId }, { fields: ['status', 'workflowId'] });
  if (!found) throw notFound('execution');
  // A queued run has no workflow yet: the starter sees `cancelled` and starts nothing (or cancels what it started).
  const rows = await em.execute<{ workflow_id: string; was: string }[]>(
    `with old as (select id, status from automation_execution where id = ? and workspace_id = ? and status in ('queued', 'running') for update)
     update automation_execution e set ${MARK_CANCELLED} from old where e.id = old.id returning e.workflow_id, old.status as was`,
    [executionId, workspaceId],
  );
  if (rows[0]?.was === 'running') {
    try {
      await deps.workflows.cancel(rows[0].workflow_id);
    } catch (err) {
      // Temporal is unreachable: the run goes on, so its row must not claim otherwise.
      await em.execute(
        `update automation_execution set status = 'running', error = null, finished_at = null, duration_ms = null where id = ? and workspace_id = ?`,
        [executionId, workspaceId],
      );
      deps.log.error({ err, executionId }, 'cancel failed: workflow engine unavailable');
      throw engineCommandUnavailable('the cancellation of this run', false);
    }
  }
  const workflowIds: string[] = [];
  let parents = [executionId];
  let childrenCancelled = 0;
  for (let depth = 0; depth < MAX_DEPTH && parents.length; depth++) {
    const children = await em.execute<{ id: string; workflow_id: string }[]>(
      `update automation_execution set ${MARK_CANCELLED} where workspace_id = ? and parent_execution_id in (?) and status in ('queued', 'running') returning id, workflow_id`,
      [workspaceId, parents],
    );
    childrenCancelled += children.length;
    workflowIds.push(...children.map((c) => c.workflow_id));
    parents = children.map((c) => c.id);
  }
  if (!rows.length && childrenCancelled === 0) {
    throw new DomainError(
      'invalid_state',
      `execution is ${found.status}, not running: only a running execution (or one with running fan-out children) can be cancelled`,
      {
        current: found.status,
        requested: 'cancelled',
        allowed: executionStatusTransitions.allowedFrom(found.status),
      },
    );
  }
  await mapLimited(workflowIds, CANCEL_CONCURRENCY, (id) =>
    deps.workflows
      .cancel(id)
      .catch((err: unknown) => deps.log.warn({ err, workflowId: id }, 'workflow cancel failed (its row is cancelled)')),
  );
  return { cancelled: true, childrenCancelled };
}
