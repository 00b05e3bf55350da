/**
 * The schedule tick workflow's contract (modules/automations/automation-schedule.workflow.ts): the input every
 * tick of a `scheduled` automation's Temporal Schedule starts with (schedules.ts); it has no signals,
 * updates or queries. Workflow-safe: types only.
 */

/** Ids only: the tick's time comes from its workflow id (Temporal appends it). */
export interface AutomationScheduleTickInput {
  workspaceId: string;
  automationId: string;
}
