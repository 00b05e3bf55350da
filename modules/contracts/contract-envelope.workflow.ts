/**
 * One signing envelope (`contract-envelope:<workspaceId>:<contractId>`). Postgres holds the truth
 * (signatures, declines and voids are committed by the API first); this workflow only re-reads it
 * when told (signal) or when a timer fires, then invites, reminds, expires or completes. A worker
 * killed between two signatures loses nothing: the next run of advanceEnvelope sees both.
 */
import {
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { createContractActivities } from './contracts.activities';
import { envelopeChangedSignal, envelopeDeadlineQuery, type ContractEnvelopeInput } from './contract-envelope.messages';

type Activities = ReturnType<typeof createContractActivities>;

// Reads and one short transaction (the completion renders the PDF): local activities, so a
// signature costs one workflow task instead of an activity task round trip through the server.
// Database writes of the envelope's rows: retried every second while the database is away (recorded within a second
// of its return).
const { advanceEnvelope, expireEnvelope } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 1, maximumInterval: '1 second' },
});
// Sends: SMTP and SMS gateways may be slow or down for hours; retried with backoff for about a day, like
// webhook deliveries (a retry re-issues the link). The contract's lastError shows why meanwhile.
const { inviteSigners, remindSigners, closeEnvelope } = proxyActivities<Activities>({
  startToCloseTimeout: '2 minutes',
  scheduleToCloseTimeout: '26 hours',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 hour' },
});

/** Re-read the database at least this often, so a lost signal (API could not reach Temporal) only delays. */
const MAX_IDLE_MS = 6 * 3_600_000;
/**
 * Issue 28: the deadline timer follows the database's deadlineAt (POST /contracts/:id/extend moves it),
 * read by every advanceEnvelope. Histories recorded before have no marker and keep the input's deadline.
 */
const DEADLINE_FROM_DB = 'contract-envelope-deadline-from-db';

export async function contractEnvelopeWorkflow(input: ContractEnvelopeInput): Promise<{ status: string }> {
  let changed = false;
  setHandler(envelopeChangedSignal, () => {
    changed = true;
  });
  const ids = { workspaceId: input.workspaceId, contractId: input.contractId };
  let deadline = input.deadlineAt ? Date.parse(input.deadlineAt) : null;
  setHandler(envelopeDeadlineQuery, () => ({
    deadlineAt: deadline === null ? null : new Date(deadline).toISOString(),
  }));
  let nextReminder = input.reminderIntervalMs ? Date.now() + input.reminderIntervalMs : null;

  for (;;) {
    changed = false;
    const step = await advanceEnvelope(ids);
    if (step.status !== 'sent') {
      if (step.status !== 'missing' && step.status !== 'draft') await closeEnvelope({ ...ids, status: step.status });
      return { status: step.status };
    }
    // Results recorded before issue 28 carry no deadlineAt: those histories never reach patched().
    if (step.deadlineAt !== undefined && patched(DEADLINE_FROM_DB))
      deadline = step.deadlineAt ? Date.parse(step.deadlineAt) : null;
    if (step.invite.length) await inviteSigners({ ...ids, signerIds: step.invite });
    if (changed) continue;

    const now = Date.now();
    const timeout = Math.max(
      0,
      Math.min(MAX_IDLE_MS, ...[deadline, nextReminder].filter((t): t is number => t !== null).map((t) => t - now)),
    );
    if (await condition(() => changed, timeout)) continue;

    if (deadline !== null && Date.now() >= deadline) {
      // Still sent: every signature came in before the deadline (the next re-read completes it), or
      // the database clock is behind this worker's: a short pause instead of a busy loop.
      if ((await expireEnvelope(ids)).status === 'sent') await condition(() => changed, 1000);
      continue;
    }
    if (nextReminder !== null && input.reminderIntervalMs && Date.now() >= nextReminder) {
      await remindSigners({ ...ids, intervalMs: input.reminderIntervalMs });
      nextReminder = Date.now() + input.reminderIntervalMs;
    }
    if (workflowInfo().continueAsNewSuggested) await continueAsNew<typeof contractEnvelopeWorkflow>(input);
  }
}
