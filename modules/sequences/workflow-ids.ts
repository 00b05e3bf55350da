/**
 * Temporal ids of sequence enrollments (DESIGN.md "Workflow ids"). Pure: workflow code may import it.
 */
import { sequenceEnrollmentKind } from './sequence-enrollment.kind';

/** `sequence-enrollment:<workspaceId>:<enrollmentId>`: one workflow per enrollment row (the registry's builder). */
export const enrollmentWorkflowId = (workspaceId: string, enrollmentId: string): string =>
  sequenceEnrollmentKind.workflowId(workspaceId, enrollmentId);

export function parseEnrollmentWorkflowId(workflowId: string): { workspaceId: string; enrollmentId: string } | null {
  const m = sequenceEnrollmentKind.parseId(workflowId);
  return m ? { workspaceId: m.workspaceId, enrollmentId: m.id } : null;
}
