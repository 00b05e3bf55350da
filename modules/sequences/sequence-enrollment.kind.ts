/**
 * The sequence enrollment workflow kind (domain/workflow-kinds.ts `defineWorkflowKind`), declared in its module and
 * named by the module's `workflows` (sequences.module.ts).
 */
import { defineWorkflowKind, quoteName } from '../../platform/workflow-kinds';
import type { EnrollmentWorkflowInput } from './sequence-enrollment.messages';

export interface SequenceEnrollmentMeta {
  workspaceId: string;
  enrollmentId: string;
  sequenceId: string;
  sequenceName: string;
  sequenceVersion: number;
  entityType: string;
  entityId: string;
}

/** One workflow per sequence enrollment row (`sequence-enrollment:<workspaceId>:<enrollmentId>`). */
export const sequenceEnrollmentKind = defineWorkflowKind<SequenceEnrollmentMeta, EnrollmentWorkflowInput>({
  kind: 'sequence-enrollment',
  workflowType: 'sequenceEnrollmentWorkflow',
  // Before and after the bookkeeping folds (input.startRecorded, StepActivityInput.then): mirrors as local-activity
  // markers, then none until the first timer. Then steps as local activities (STEP_AS_LOCAL_ACTIVITY_PATCH): e-mail,
  // wait, e-mail, completed. Then sends that decide their own time (patch sequence-recipient-time): an e-mail
  // deferred to the contact's business hours, a timer, the send.
  replayFixtures: [
    'sequence-enrollment.history.json',
    'sequence-enrollment-folded-bookkeeping.history.json',
    'sequence-enrollment-local-steps.history.json',
    'sequence-enrollment-recipient-time.history.json',
  ],
  searchAttributes: (m) => ({
    CrmWorkspaceId: m.workspaceId,
    CrmSequenceId: m.sequenceId,
    CrmEntityType: m.entityType,
    CrmEntityId: m.entityId,
  }),
  memo: (m) => ({
    sequenceName: m.sequenceName,
    workspaceId: m.workspaceId,
    enrollmentId: m.enrollmentId,
    sequenceVersion: m.sequenceVersion,
  }),
  summary: (m) => `Sequence ${quoteName(m.sequenceName)} · ${m.entityType} ${m.entityId}`,
  details: (m) =>
    [
      `**Sequence** ${quoteName(m.sequenceName)} (\`${m.sequenceId}\`, version ${m.sequenceVersion})`,
      `**Enrollment** \`${m.enrollmentId}\` · ${m.entityType} \`${m.entityId}\``,
      `**Workspace** \`${m.workspaceId}\``,
    ].join('\n\n'),
});
