/**
 * Temporal ids of sequence enrollments (DESIGN.md "Workflow ids"). Pure: workflow code may import it.
 */
export const ENROLLMENT_WORKFLOW_PREFIX = 'sequence-enrollment';
export const ENROLLMENT_WORKFLOW_TYPE = 'sequenceEnrollmentWorkflow';

/** `sequence-enrollment:<workspaceId>:<enrollmentId>`: one workflow per enrollment row. */
export const enrollmentWorkflowId = (workspaceId: string, enrollmentId: string): string =>
  `${ENROLLMENT_WORKFLOW_PREFIX}:${workspaceId}:${enrollmentId}`;

export function parseEnrollmentWorkflowId(workflowId: string): { workspaceId: string; enrollmentId: string } | null {
  const m = /^sequence-enrollment:([0-9a-f]{24}):([0-9a-f]{24})$/.exec(workflowId);
  return m ? { workspaceId: m[1]!, enrollmentId: m[2]! } : null;
}
