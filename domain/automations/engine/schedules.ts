/**
 * `scheduled` triggers as Temporal Schedules: one per active scheduled automation, kept in step
 * with the definition by the outbox subscriber on `automation_changed` (created, updated,
 * toggled, duplicated, deleted, deactivated). Reads the current row, so the outcome is the same
 * however often or late an event arrives.
 */
import { forkForWorkspace } from '../../orm/tenant';
import { Automation } from '../automation.entity';
import { scheduleSpecFor } from '../schedule';
import { automationScheduleId, scheduleTickWorkflowId } from '../workflow-ids';
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
    tickWorkflowId: scheduleTickWorkflowId(workspaceId, automationId),
    tickInput: { workspaceId, automationId },
    memo: { automationName: automation.name, workspaceId, description: spec.description },
    searchAttributes: { CrmWorkspaceId: workspaceId, CrmAutomationId: automationId, CrmTriggerType: 'scheduled' },
  });
}
