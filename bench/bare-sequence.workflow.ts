// The baseline of `npm run bench:sequences`: one activity (a small Postgres insert, standing in for
// the first e-mail) and then a one-day durable timer, like an enrollment parked on its wait.
// Bundled only by the bench's own worker.
import { proxyActivities, sleep } from '@temporalio/workflow';

export interface BareSequenceActivities {
  bareSend(input: { runId: string }): Promise<void>;
}

const acts = proxyActivities<BareSequenceActivities>({
  startToCloseTimeout: '2 minutes',
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
});

export async function bareSequenceWorkflow(input: { runId: string }): Promise<void> {
  await acts.bareSend({ runId: input.runId });
  await sleep('1 day');
}
