/**
 * What sequences need from the workflow engine, written on the generic port (domain/workflow-port.ts)
 * with the registry kind `sequenceEnrollmentKind`: starts go through `startForRow` (runs.ts) like every
 * other kind, so start options, deadlines and failure mapping exist once (temporal/workflow-client.ts);
 * this file only turns the generic update/signal answers into the outcomes the sequence API needs.
 */
import { DomainError } from '../errors';
import type { WorkflowPort } from '../workflow-port';
import { COMMAND_SIGNAL, type ExitReason, type PauseArgs } from './types';

export type UpdateOutcome = 'ok' | 'invalid_state' | 'not_running';

export interface SequenceWorkflowPort {
  /** The generic port the enrollment workflows are started (and steered) through. */
  readonly engine: WorkflowPort;
  /**
   * Each answers within the engine deadline, or records the command (signal) and throws 503
   * `unavailable` (details.recorded); `commandId` makes the update and its signal one command.
   */
  pause(workflowId: string, args: PauseArgs, commandId: string): Promise<UpdateOutcome>;
  resume(workflowId: string, commandId: string): Promise<UpdateOutcome>;
  unenroll(workflowId: string, commandId: string): Promise<UpdateOutcome>;
  /** Asks a running enrollment to exit; false when it is not running. */
  exit(workflowId: string, reason: ExitReason): Promise<boolean>;
}

const WHAT = { pause: 'the pause', resume: 'the resume', unenroll: 'the unenrollment' } as const;

/** The enrollment workflow's updates and signals (workflows/sequence-enrollment.workflow.ts) on the generic port. */
export function sequenceWorkflowPort(engine: WorkflowPort): SequenceWorkflowPort {
  const update = async (
    workflowId: string,
    name: 'pause' | 'resume' | 'unenroll',
    commandId: string,
    arg: Record<string, unknown> = {},
  ): Promise<UpdateOutcome> => {
    try {
      await engine.command(workflowId, { id: commandId, update: name, signal: COMMAND_SIGNAL, arg, what: WHAT[name] });
      return 'ok';
    } catch (err) {
      // The port maps a refused update (validator) to invalid_state and a missing or closed run to not_found.
      if (err instanceof DomainError && err.code === 'invalid_state') return 'invalid_state';
      if (err instanceof DomainError && err.code === 'not_found') return 'not_running';
      throw err;
    }
  };
  return {
    engine,
    pause: (workflowId, args, commandId) => update(workflowId, 'pause', commandId, { ...args }),
    resume: (workflowId, commandId) => update(workflowId, 'resume', commandId),
    unenroll: (workflowId, commandId) => update(workflowId, 'unenroll', commandId),
    exit: (workflowId, reason) => engine.signal(workflowId, 'exit', { reason }),
  };
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
