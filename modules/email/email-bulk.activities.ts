/** Activities of the bulk e-mail workflow: ids in, the rows hold subject, bodies and addresses. */
import { Context } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import type { Logger } from '../../platform/logger';
import type { BulkProgress } from './bulk-send';
import { createSendThrottle } from './bulk-throttle';
import { finishBulk, processBulkBatch, type BatchResult } from './email-bulk.service';
import { createMessagingDeps, type MessagingDeps } from './messaging-deps';
import { lazy } from '../../platform/shared/lazy';

export interface EmailBulkActivityOptions {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  messaging?: MessagingDeps;
}

/**
 * Heartbeats every second with the batch's progress as details while `fn` runs (also while the mail server is slow to
 * answer), so a dead worker is noticed after the workflow's short heartbeat timeout.
 */
async function withProgressHeartbeats<T>(fn: (report: (p: BulkProgress) => void) => Promise<T>): Promise<T> {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return fn(() => undefined); // called outside an activity (scripts)
  }
  let progress: BulkProgress | undefined;
  const beat = () => ctx.heartbeat(progress);
  beat();
  const timer = setInterval(beat, 1000);
  try {
    return await fn((p) => (progress = { ...p }));
  } finally {
    clearInterval(timer);
  }
}

export function createEmailBulkActivities(opts: EmailBulkActivityOptions) {
  const messaging = opts.messaging ? () => opts.messaging! : lazy(() => createMessagingDeps(opts.config));
  // One pace per mailbox for every bulk send this worker runs.
  const throttle = createSendThrottle(opts.config.emailBulk.perAccountPerSecond);
  const settings = { concurrency: opts.config.emailBulk.concurrency, batchSize: opts.config.emailBulk.batchSize };
  return {
    /**
     * Sends the next batch; throws (so Temporal retries with backoff) while recipients wait for an unreachable mail
     * server.
     */
    async emailBulkSendBatch(input: {
      workspaceId: string;
      queueId: string;
      /** The run waits for a mailbox cap's window itself (BatchResult.deferredUntil): no retry for that. */
      capWaits?: boolean;
    }): Promise<BatchResult> {
      const m = messaging();
      if (!m) throw new Error('messaging is not available in this worker');
      const res = await withProgressHeartbeats((heartbeat) =>
        processBulkBatch(
          opts.orm.em,
          { workspaceId: input.workspaceId, queueId: input.queueId },
          {
            email: { transport: m.transport, accounts: m.accounts, tracking: m.tracking },
            throttle,
            settings,
            heartbeat,
          },
        ),
      );
      opts.log.info({ workspaceId: input.workspaceId, queueId: input.queueId, ...res }, 'bulk e-mail batch');
      // Held back only by the mailbox's cap: the run sleeps until its window ends (runs that can: capWaits).
      const onlyCapped = res.deferredUntil && input.capWaits;
      if (res.retryLater && !onlyCapped)
        throw new Error(`${res.retryLater} recipient(s) could not be handed to the mail server yet; retrying`);
      return res;
    },
    async emailBulkFinish(input: { workspaceId: string; queueId: string; error?: string }) {
      return finishBulk(opts.orm.em, input);
    },
  };
}
