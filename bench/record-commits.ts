// Records committed for a bench through their service, timed at the commit: the engine's and the delivery
// pipeline's latencies start there (an event becomes visible when its transaction commits).
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { forkForWorkspace } from '../platform/orm/tenant';
import { paced } from './stats';

/** Creates record `i` in the transaction `em` and answers its id. */
export type CreateRecord = (em: EntityManager, i: number) => Promise<string>;

/**
 * A burst in `batches` transactions (all events of one commit become visible at once), or one record per transaction
 * every `everyMs` (open loop: a slow commit does not push the schedule).
 */
export type Pacing = { batches: number } | { everyMs: number };

/** Creates `count` records in the workspace as `pacing` says; record id → commit time (ms). */
export async function commitRecords(
  orm: MikroORM,
  workspaceId: string,
  count: number,
  pacing: Pacing,
  create: CreateRecord,
): Promise<Map<string, number>> {
  const committed = new Map<string, number>();
  const commit = async (from: number, to: number): Promise<void> => {
    const ids: string[] = [];
    await forkForWorkspace(orm.em, workspaceId).transactional(async (tem) => {
      for (let i = from; i < to; i++) ids.push(await create(tem, i));
    });
    const at = Date.now();
    for (const id of ids) committed.set(id, at);
  };
  if ('everyMs' in pacing) await paced(count, pacing.everyMs, (i) => commit(i, i + 1));
  else {
    const per = Math.ceil(count / pacing.batches);
    for (let done = 0; done < count; done += per) await commit(done, Math.min(count, done + per));
  }
  return committed;
}
