import { defineTransitions } from '../shared/transitions';
import type { ExecutionStatus } from './automation.entity';

/**
 * Execution status as mirrored in Postgres: only a running execution changes; the workflow
 * (finishExecution) and the API (cancel) both write with `where status = 'running'`, so whichever
 * comes first wins and the row never leaves a final state.
 */
export const executionStatusTransitions = defineTransitions<ExecutionStatus>({
  resource: 'execution',
  field: 'status',
  states: ['running', 'completed', 'failed', 'cancelled'],
  transitions: { running: ['completed', 'failed', 'cancelled'], completed: [], failed: [], cancelled: [] },
  notes: [
    'A finished parent whose fan-out children still run can be cancelled: that cancels the children (the parent keeps its status).',
  ],
});

/** The states a final status may be written from (the SQL guard of finishExecutionRow and cancel). */
export const FINISHABLE_FROM = executionStatusTransitions.states.filter(
  (s) => executionStatusTransitions.allowedFrom(s).length > 0,
);
