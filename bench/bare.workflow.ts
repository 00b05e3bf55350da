// The baseline of `npm run bench:automations`: a bare Temporal workflow that calls `steps` trivial
// activities one after another (each one small Postgres insert, see automations.bench.ts), with
// the same activity options as the engine's action nodes. Bundled only by the bench's own worker.
import { proxyActivities } from '@temporalio/workflow';

export interface BareActivities {
  bareStep(input: { runId: string; step: number }): Promise<void>;
}

const acts = proxyActivities<BareActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
});

export async function bareWorkflow(input: { runId: string; steps: number }): Promise<number> {
  for (let step = 0; step < input.steps; step++) await acts.bareStep({ runId: input.runId, step });
  return input.steps;
}
