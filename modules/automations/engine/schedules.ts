/**
 * `scheduled` triggers as Temporal Schedules: one per active scheduled automation, kept in step
 * with the definition by the outbox subscriber on `automation_changed` (created, updated,
 * toggled, duplicated, deleted, deactivated). Reads the current row, so the outcome is the same
 * however often or late an event arrives.
 */
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { Automation } from '../automation.entity';
import { scheduleSpecFor } from '../schedule';
import { automationScheduleTickKind } from '../automation-schedule.kind';
import { automationScheduleId, parseAutomationScheduleId, SCHEDULE_ID_PREFIX } from '../automation-ids.pure';
import type { EngineDeps } from './ports';
import { workspaceInfo } from './workspace';

export type ScheduleSync = 'created' | 'updated' | 'deleted' | 'absent' | 'invalid';

export async function syncSchedule(deps: EngineDeps, workspaceId: string, automationId: string): Promise<ScheduleSync> {
  const em = forkForWorkspace(deps.orm.em, workspaceId);
  const scheduleId = automationScheduleId(workspaceId, automationId);
  const automation = await em.findOne(Automation, { _id: automationId });
  const trigger = automation?.nodes.find((n) => n.type === 'trigger');
  if (!automation || !automation.isActive || automation.triggerType !== 'scheduled' || !trigger) {
    return (await deps.workflows.deleteSchedule(scheduleId)) ? 'deleted' : 'absent';
  }
  const { timezone } = await workspaceInfo(em, workspaceId);
  const spec = scheduleSpecFor(trigger.data.config, timezone);
  if (!spec.ok) {
    // Activation validates the config; a row that still fails here must not keep an old schedule.
    deps.log.warn({ automationId, errors: spec.errors }, 'scheduled trigger config invalid: schedule removed');
    await deps.workflows.deleteSchedule(scheduleId);
    return 'invalid';
  }
  return deps.workflows.upsertSchedule({
    scheduleId,
    spec: spec.spec,
    kind: automationScheduleTickKind,
    workspaceId,
    id: automationId,
    input: { workspaceId, automationId },
    meta: { workspaceId, automationId, automationName: automation.name, description: spec.description },
  });
}

export interface ReconcileResult {
  synced: number;
  removed: number;
  failed: number;
}

/**
 * Brings Temporal's schedules in line with Postgres after anything the outbox could not see (a
 * Temporal database restored or reset, schedules deleted by hand): every active scheduled
 * automation gets its schedule (re)applied, and every automation schedule on the server whose
 * automation is gone or no longer active and scheduled is removed. Idempotent; the worker runs it
 * at start. `workspaceIds` limits it to those workspaces (tests share one server).
 */
export async function reconcileSchedules(
  deps: EngineDeps,
  opts: { workspaceIds?: readonly string[] } = {},
): Promise<ReconcileResult> {
  const result: ReconcileResult = { synced: 0, removed: 0, failed: 0 };
  const inScope = (ws: string): boolean => !opts.workspaceIds || opts.workspaceIds.includes(ws);
  // Across workspaces: the tenant filter is lifted for this one read of ids.
  const active = await deps.orm.em.fork().find(
    Automation,
    {
      isActive: true,
      triggerType: 'scheduled',
      ...(opts.workspaceIds ? { workspaceId: { $in: [...opts.workspaceIds] } } : {}),
    },
    { fields: ['_id', 'workspaceId'], filters: false },
  );
  const wanted = new Set(active.map((a) => automationScheduleId(a.workspaceId, a._id)));
  const sync = async (workspaceId: string, automationId: string): Promise<ScheduleSync | null> => {
    try {
      return await syncSchedule(deps, workspaceId, automationId);
    } catch (err) {
      result.failed += 1;
      deps.log.warn({ err, workspaceId, automationId }, 'schedule reconcile failed for an automation');
      return null;
    }
  };
  for (const a of active) if ((await sync(a.workspaceId, a._id)) !== null) result.synced += 1;
  for (const scheduleId of await deps.workflows.listScheduleIds(SCHEDULE_ID_PREFIX)) {
    const ids = parseAutomationScheduleId(scheduleId);
    if (!ids || wanted.has(scheduleId) || !inScope(ids.workspaceId)) continue;
    // syncSchedule re-reads the row: an automation activated meanwhile keeps its schedule.
    if ((await sync(ids.workspaceId, ids.automationId)) === 'deleted') result.removed += 1;
  }
  return result;
}
