import { defineTransitions } from '../../platform/shared/transitions';
import type { ExecutionStatus } from './automation.entity';

/**
 * Execution status as mirrored in Postgres: only a queued or running execution changes; the workflow
 * (finishExecution) and the API (cancel) both write with `where status in ('queued', 'running')`, so whichever
 * comes first wins and the row never leaves a final state.
 */
export const executionStatusTransitions = defineTransitions<ExecutionStatus>({
  resource: 'execution',
  field: 'status',
  states: ['queued', 'running', 'completed', 'failed', 'cancelled'],
  transitions: {
    // A run can finish before the starter records that its workflow started.
    queued: ['running', 'completed', 'failed', 'cancelled'],
    running: ['completed', 'failed', 'cancelled'],
    completed: [],
    failed: [],
    cancelled: [],
  },
  notes: [
    'queued: the run is recorded (API starts answer 202 then) and its workflow starts moments later; it stays queued while the engine is unavailable and starts once it is back.',
    'A finished parent whose fan-out children still run can be cancelled: that cancels the children (the parent keeps its status).',
    'failed is final too: a retry (POST /automations/executions/:executionId/retry) is a new execution naming it in retryOf.',
  ],
});

/** The states a final status may be written from (the SQL guard of finishExecutionRow and cancel). */
export const FINISHABLE_FROM = executionStatusTransitions.states.filter(
  (s) => executionStatusTransitions.allowedFrom(s).length > 0,
);
