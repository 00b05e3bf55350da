/**
 * The automation execution workflow kind, declared in its module and named by its `workflows`
 * (automations.module.ts).
 */
import { defineWorkflowKind, quoteName } from '../../platform/workflow-kinds';
import type { ExecutionWorkflowInput } from './automation-execution.messages';
import { EXECUTION_WORKFLOW_PREFIX } from './automation-ids.pure';

export interface AutomationExecutionMeta {
  workspaceId: string;
  executionId: string;
  automationId: string;
  automationName: string;
  triggerType: string;
  entityType?: string | null;
  entityId?: string | null;
  isTest?: boolean;
  parentExecutionId?: string | null;
}

export const automationExecutionKind = defineWorkflowKind<AutomationExecutionMeta, ExecutionWorkflowInput>({
  kind: EXECUTION_WORKFLOW_PREFIX,
  workflowType: 'automationExecutionWorkflow',
  replayFixtures: [
    'automation-execution-remote-bookkeeping.history.json',
    'automation-execution-local-bookkeeping.history.json',
    'automation-execution-local-actions.history.json',
  ],
  searchAttributes: (m) => ({
    CrmWorkspaceId: m.workspaceId,
    CrmAutomationId: m.automationId,
    CrmTriggerType: m.triggerType,
    ...(m.entityType ? { CrmEntityType: m.entityType } : {}),
    ...(m.entityId ? { CrmEntityId: m.entityId } : {}),
  }),
  memo: (m) => ({
    automationName: m.automationName,
    workspaceId: m.workspaceId,
    executionId: m.executionId,
    isTest: Boolean(m.isTest),
    ...(m.parentExecutionId ? { parentExecutionId: m.parentExecutionId } : {}),
  }),
  summary: (m) =>
    [
      `${m.isTest ? 'Test run · ' : ''}Automation ${quoteName(m.automationName)}`,
      m.triggerType,
      ...(m.entityType && m.entityId ? [`${m.entityType} ${m.entityId}`] : []),
      ...(m.parentExecutionId ? [`fan-out of ${m.parentExecutionId}`] : []),
    ].join(' · '),
  details: (m) =>
    [
      `**Automation** ${quoteName(m.automationName)} (\`${m.automationId}\`)`,
      `**Execution** \`${m.executionId}\` · trigger \`${m.triggerType}\``,
      ...(m.entityType && m.entityId ? [`**Record** ${m.entityType} \`${m.entityId}\``] : []),
      ...(m.parentExecutionId ? [`**Parent execution** \`${m.parentExecutionId}\``] : []),
      `**Workspace** \`${m.workspaceId}\``,
    ].join('\n\n'),
});
