/**
 * The Temporal adapter of the sequence engine's port (modules/sequences/ports.ts): the generic
 * workflow port (platform/temporal/workflow-client.ts) with the sequence updates and signal on top. Starts
 * go through the generic port with the registry kind (modules/sequences/runs.ts).
 */
import type { Client } from '@temporalio/client';
import { sequenceWorkflowPort, type SequenceWorkflowPort } from './ports';
import { createWorkflowPort, type WorkflowPortOptions } from '../../platform/temporal/workflow-client';

export function createSequenceWorkflowPort(
  client: Client,
  taskQueue: string,
  opts: WorkflowPortOptions = {},
): SequenceWorkflowPort {
  return sequenceWorkflowPort(createWorkflowPort(client, taskQueue, opts));
}
