/** What sequences need from the workflow engine; the Temporal adapter is temporal/sequence-client.ts. */
import type { EnrollmentWorkflowInput, ExitReason, PauseArgs } from './types';

export interface StartEnrollmentRequest {
  workflowId: string;
  input: EnrollmentWorkflowInput;
  searchAttributes: { CrmWorkspaceId: string; CrmSequenceId: string; CrmEntityType: string; CrmEntityId: string };
  memo: Record<string, unknown>;
  /** One line for the Web UI (names of the sequence, never personal data). */
  summary: string;
}

export type UpdateOutcome = 'ok' | 'invalid_state' | 'not_running';

export interface SequenceWorkflowPort {
  start(req: StartEnrollmentRequest): Promise<'started' | 'already_started'>;
  pause(workflowId: string, args: PauseArgs): Promise<UpdateOutcome>;
  resume(workflowId: string): Promise<UpdateOutcome>;
  unenroll(workflowId: string): Promise<UpdateOutcome>;
  /** Asks a running enrollment to exit; false when it is not running. */
  exit(workflowId: string, reason: ExitReason): Promise<boolean>;
}

export interface SequenceEngineDeps {
  orm: import('@mikro-orm/postgresql').MikroORM;
  log: import('../logger').Logger;
  workflows: SequenceWorkflowPort;
  /** Tests only: see EnrollmentWorkflowInput.waitScale. */
  waitScale?: number;
  /** Tests only: see EnrollmentWorkflowInput.stepTimeoutMs. */
  stepTimeoutMs?: number;
}
