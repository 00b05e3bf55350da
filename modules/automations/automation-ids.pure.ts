/**
 * The one place that builds Temporal ids for automations (DESIGN.md "Workflow ids"): readable,
 * deterministic, and scoped by workspace so an operator can find every run of a workspace by
 * prefix in the Web UI. Pure: workflow code may import it.
 */

export const EXECUTION_WORKFLOW_PREFIX = 'automation-execution';
export const SCHEDULE_ID_PREFIX = 'automation-schedule';
export const SCHEDULE_TICK_PREFIX = 'automation-tick';

/** `automation-execution:<workspaceId>:<executionId>`: one workflow per execution row. */
export const executionWorkflowId = (workspaceId: string, executionId: string): string =>
  `${EXECUTION_WORKFLOW_PREFIX}:${workspaceId}:${executionId}`;

/** The Temporal Schedule of a `scheduled` automation (at most one per automation). */
export const automationScheduleId = (workspaceId: string, automationId: string): string =>
  `${SCHEDULE_ID_PREFIX}:${workspaceId}:${automationId}`;

/**
 * Workflow id the schedule gives its tick workflows; Temporal appends `-<scheduled time>` to it,
 * which makes every tick id unique and tells the tick which time it stands for.
 */
export const scheduleTickWorkflowId = (workspaceId: string, automationId: string): string =>
  `${SCHEDULE_TICK_PREFIX}:${workspaceId}:${automationId}`;

export function parseAutomationScheduleId(scheduleId: string): { workspaceId: string; automationId: string } | null {
  const m = /^automation-schedule:([0-9a-f]{24}):([0-9a-f]{24})$/.exec(scheduleId);
  return m ? { workspaceId: m[1]!, automationId: m[2]! } : null;
}

export function parseExecutionWorkflowId(workflowId: string): { workspaceId: string; executionId: string } | null {
  const m = /^automation-execution:([0-9a-f]{24}):([0-9a-f]{24})$/.exec(workflowId);
  return m ? { workspaceId: m[1]!, executionId: m[2]! } : null;
}

/** The scheduled time a tick workflow id ends with (`…-2030-01-01T10:00:00Z`), or null. */
export function scheduledTimeOfTick(workflowId: string): string | null {
  const m = /-(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)$/.exec(workflowId);
  return m ? m[1]! : null;
}
