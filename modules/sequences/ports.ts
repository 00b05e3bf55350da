/**
 * What sequences need from the workflow engine, written on the generic port (domain/workflow-port.ts)
 * with the registry kind `sequenceEnrollmentKind`: starts go through `startForRow` (runs.ts) like every
 * other kind, so start options, deadlines and failure mapping exist once (temporal/workflow-client.ts);
 * this file only turns the generic update/signal answers into the outcomes the sequence API needs.
 */
import { DomainError } from '../../platform/errors';
import type { WorkflowPort } from '../../platform/workflow-port';
import {
  commandSignal,
  exitSignal,
  pauseUpdate,
  resumeUpdate,
  unenrollUpdate,
  waitQuery,
  type EnrollmentWait,
  type PauseArgs,
} from './sequence-enrollment.messages';
import type { ExitReason } from './types';

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
  /**
   * What the run waits for and until when (its waitQuery); null when there is no such run or it has no such query.
   * Needs a worker: the caller bounds it (enrollment-wait.ts).
   */
  wait(workflowId: string): Promise<EnrollmentWait | null>;
}

/** The enrollment workflow's updates and signals (sequence-enrollment.messages.ts) on the generic port. */
export function sequenceWorkflowPort(engine: WorkflowPort): SequenceWorkflowPort {
  const outcome = async (command: Promise<unknown>): Promise<UpdateOutcome> => {
    try {
      await command;
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
    pause: (workflowId, args, commandId) =>
      outcome(
        engine.command(workflowId, {
          id: commandId,
          update: pauseUpdate,
          signal: commandSignal,
          arg: { ...args },
          what: 'the pause',
        }),
      ),
    resume: (workflowId, commandId) =>
      outcome(
        engine.command(workflowId, { id: commandId, update: resumeUpdate, signal: commandSignal, what: 'the resume' }),
      ),
    unenroll: (workflowId, commandId) =>
      outcome(
        engine.command(workflowId, {
          id: commandId,
          update: unenrollUpdate,
          signal: commandSignal,
          what: 'the unenrollment',
        }),
      ),
    exit: (workflowId, reason) => engine.signal(workflowId, exitSignal, { reason }),
    wait: async (workflowId) => {
      try {
        return await engine.query(workflowId, waitQuery);
      } catch (err) {
        // No such run, or (validation) a run of a build without the query.
        if (err instanceof DomainError && (err.code === 'not_found' || err.code === 'validation')) return null;
        throw err;
      }
    },
  };
}

export interface SequenceEngineDeps {
  orm: import('@mikro-orm/postgresql').MikroORM;
  log: import('../../platform/logger').Logger;
  workflows: SequenceWorkflowPort;
  /** Tests only: see EnrollmentWorkflowInput.waitScale. */
  waitScale?: number;
  /** Tests only: see EnrollmentWorkflowInput.stepTimeoutMs. */
  stepTimeoutMs?: number;
}
