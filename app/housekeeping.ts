// The worker's hourly cleanup (bin/worker.ts): rate-limit windows, processed outbox events, idempotency keys,
// automation skips (14 days) and finished runs past their workspace's retention (issue 27).
import type { MikroORM } from '@mikro-orm/postgresql';
import { pruneSkips } from '../modules/automations';
import { pruneIdempotencyKeys } from '../platform/idempotency/idempotency.service';
import type { Logger } from '../platform/logger';
import { pruneProcessedOutboxEvents } from '../platform/outbox/housekeeping';
import { pruneRateLimitWindows, pruneFinishedRuns } from '../modules/workspaces';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60_000;
const OUTBOX_RETENTION_DAYS = 7;

/** Hourly cleanup; several worker replicas may run it at once (the deletes are idempotent). */
export function startHousekeeping(orm: MikroORM, log: Logger): { stop(): Promise<void> } {
  let current: Promise<void> | null = null;
  const run = (): void => {
    if (current) return;
    current = (async () => {
      const em = orm.em.fork();
      const rateLimitWindows = await pruneRateLimitWindows(em);
      const outboxEvents = await pruneProcessedOutboxEvents(em, OUTBOX_RETENTION_DAYS);
      const idempotencyKeys = await pruneIdempotencyKeys(em);
      const automationSkips = await pruneSkips(em);
      const runs = await pruneFinishedRuns(em);
      log.info({ rateLimitWindows, outboxEvents, idempotencyKeys, automationSkips, ...runs }, 'housekeeping done');
    })()
      .catch((err: unknown) => log.error({ err }, 'housekeeping failed'))
      .finally(() => {
        current = null;
      });
  };
  run();
  const timer = setInterval(run, HOUSEKEEPING_INTERVAL_MS);
  return {
    async stop() {
      clearInterval(timer);
      await current;
    },
  };
}
