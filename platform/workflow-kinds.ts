/**
 * The registry of every Temporal workflow kind (DESIGN.md "Workflow ids"): its workflow type (the function
 * exported by the generated bundle entry, temporal/bundle-options.ts), its id `<kind>:<workspaceId>:<id>`, the
 * search attributes and memo it is started with, and the one-line summary operators see in the Web UI.
 * Pure (no Temporal, no I/O): the API, the domain, activities and workflow code all import it.
 *
 * Each kind carries the type of its workflow's input (declared in the kind's `<kind>.messages.ts`
 * beside its signals, updates and queries): starting a kind with another input fails tsc.
 *
 * A module under modules/ declares its kind in its own `<kind>.kind.ts` (modules/bookings/booking-approval.kind.ts);
 * the kinds of features not yet moved there are defined below. Either way the kind is named in its module's
 * `workflows` (WORKFLOW_KINDS in domain/modules.ts derives from the modules) and has a replay fixture;
 * test/unit/temporal/workflow-kinds.test.ts fails until the workflow is exported and the fixture exists.
 */
import type { ExecutionWorkflowInput } from '../modules/automations/automation-execution.messages';
import type { AutomationScheduleTickInput } from '../modules/automations/automation-schedule.messages';
import { EXECUTION_WORKFLOW_PREFIX, SCHEDULE_TICK_PREFIX } from '../modules/automations/automation-ids.pure';
import type { EmailBulkWorkflowInput } from '../modules/email/email-bulk.messages';
import type { ScheduledSmsWorkflowInput } from '../modules/messaging/sms-scheduled.messages';

/**
 * Search attributes registered on the server (infra/search-attributes.ts): ids and enum-like values, never personal
 * data.
 */
export type CrmSearchAttribute =
  'CrmWorkspaceId' | 'CrmAutomationId' | 'CrmSequenceId' | 'CrmEntityType' | 'CrmEntityId' | 'CrmTriggerType';
export type SearchAttributes = Partial<Record<CrmSearchAttribute, string>>;

export interface WorkflowKindSpec<Meta> {
  /** Id prefix, kebab-case: ids are `<kind>:<workspaceId>:<id>`. */
  kind: string;
  /** Name of the workflow function (exported by a `*.workflow.ts` file; the bundle entry re-exports them all). */
  workflowType: string;
  /** Recorded histories in test/fixtures replayed against the current code (at least one). */
  replayFixtures: readonly string[];
  searchAttributes(meta: Meta): SearchAttributes;
  /** Readable names and ids for the UI (memo is encrypted by the payload codec; no secrets). */
  memo(meta: Meta): Record<string, unknown>;
  /** One line (Temporal `staticSummary`), names and ids only: no e-mails, phones or secrets. */
  summary(meta: Meta): string;
  /** Optional markdown (Temporal `staticDetails`). */
  details?(meta: Meta): string;
}

/** Brands a kind with its input type (no run-time value). */
declare const inputType: unique symbol;

export interface WorkflowKind<Meta = unknown, Input = unknown> extends WorkflowKindSpec<Meta> {
  workflowId(workspaceId: string, id: string): string;
  /** The workspace and id of one of this kind's workflow ids, or null. */
  parseId(workflowId: string): { workspaceId: string; id: string } | null;
  /** Type only, absent at run time: what the kind's workflow is started with (its one argument). */
  readonly [inputType]?: Input;
}

/** The input type of a kind (`InputOf<typeof bookingApprovalKind>`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type InputOf<K> = K extends WorkflowKind<any, infer Input> ? Input : never;

const OBJECT_ID = '[0-9a-f]{24}';
/** Keeps summaries one short line whatever a name holds. */
const MAX_NAME = 80;

export function quoteName(name: string | null | undefined): string {
  const oneLine = (name ?? '').replace(/\s+/g, ' ').trim();
  return `"${oneLine.length > MAX_NAME ? `${oneLine.slice(0, MAX_NAME - 1)}…` : oneLine}"`;
}

/** `Input` is the workflow's input type (from the kind's `.messages.ts`); `Meta` what the UI fields are built from. */
export function defineWorkflowKind<Meta, Input>(spec: WorkflowKindSpec<Meta>): WorkflowKind<Meta, Input> {
  if (!/^[a-z][a-z0-9-]*$/.test(spec.kind)) throw new Error(`workflow kind "${spec.kind}" must be kebab-case`);
  const re = new RegExp(`^${spec.kind}:(${OBJECT_ID}):(${OBJECT_ID})$`);
  return {
    ...spec,
    workflowId: (workspaceId, id) => `${spec.kind}:${workspaceId}:${id}`,
    parseId(workflowId) {
      const m = re.exec(workflowId);
      return m ? { workspaceId: m[1]!, id: m[2]! } : null;
    },
  };
}

// ---- automations -----------------------------------------------------------------------------

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

// ---- messaging -------------------------------------------------------------------------------

export interface ScheduledSmsMeta {
  workspaceId: string;
  scheduledId: string;
  /** ISO time the SMS is due. */
  sendAt: string;
}

/** One timer workflow per scheduled SMS (`POST /sms/schedule`); its input holds ids and the time only. */
export const scheduledSmsKind = defineWorkflowKind<ScheduledSmsMeta, ScheduledSmsWorkflowInput>({
  kind: 'sms-scheduled',
  workflowType: 'scheduledSmsWorkflow',
  replayFixtures: ['sms-scheduled.history.json'],
  searchAttributes: (m) => ({ CrmWorkspaceId: m.workspaceId }),
  memo: (m) => ({ workspaceId: m.workspaceId, scheduledId: m.scheduledId, sendAt: m.sendAt }),
  summary: (m) => `Scheduled SMS ${m.scheduledId} · at ${m.sendAt}`,
});

// ---- bulk e-mail -----------------------------------------------------------------------------

export interface EmailBulkMeta {
  workspaceId: string;
  queueId: string;
  accountId: string;
  recipients: number;
}

/**
 * One bulk e-mail send (`POST /emails/bulk`): ids only; the activities load subject, body and addresses from the rows.
 */
export const emailBulkKind = defineWorkflowKind<EmailBulkMeta, EmailBulkWorkflowInput>({
  kind: 'email-bulk',
  workflowType: 'emailBulkWorkflow',
  // Then (patch bulk-mailbox-cap) a batch held back by the mailbox's cap and the timer until its window.
  replayFixtures: ['email-bulk.history.json', 'email-bulk-mailbox-cap.history.json'],
  searchAttributes: (m) => ({ CrmWorkspaceId: m.workspaceId }),
  memo: (m) => ({ workspaceId: m.workspaceId, queueId: m.queueId, accountId: m.accountId, recipients: m.recipients }),
  summary: (m) =>
    `Bulk e-mail ${m.queueId} · ${m.recipients} ${m.recipients === 1 ? 'recipient' : 'recipients'} · account ${m.accountId}`,
});
