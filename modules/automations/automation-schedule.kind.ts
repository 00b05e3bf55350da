/**
 * The automation schedule tick workflow kind, declared in its module and named by its `workflows`
 * (automations.module.ts).
 */
import { defineWorkflowKind, quoteName } from '../../platform/workflow-kinds';
import type { AutomationScheduleTickInput } from './automation-schedule.messages';
import { SCHEDULE_TICK_PREFIX } from './automation-ids.pure';

export interface AutomationScheduleMeta {
  workspaceId: string;
  automationId: string;
  automationName: string;
  /** Human description of the schedule (e.g. "every day at 09:00 Europe/Copenhagen"). */
  description?: string;
}

/**
 * A tick of a `scheduled` automation's Temporal Schedule (the schedule's id is
 * `automation-schedule:<workspaceId>:<automationId>`; Temporal appends `-<time>` to each tick's id).
 */
export const automationScheduleTickKind = defineWorkflowKind<AutomationScheduleMeta, AutomationScheduleTickInput>({
  kind: SCHEDULE_TICK_PREFIX,
  workflowType: 'automationScheduleTickWorkflow',
  replayFixtures: ['automation-tick.history.json'],
  searchAttributes: (m) => ({
    CrmWorkspaceId: m.workspaceId,
    CrmAutomationId: m.automationId,
    CrmTriggerType: 'scheduled',
  }),
  memo: (m) => ({
    automationName: m.automationName,
    workspaceId: m.workspaceId,
    ...(m.description ? { description: m.description } : {}),
  }),
  summary: (m) =>
    `Schedule tick · Automation ${quoteName(m.automationName)}${m.description ? ` · ${m.description}` : ''}`,
});
