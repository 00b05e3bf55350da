/**
 * How the starter (intake/starter.ts) learns that runs or enrollments were queued: a Postgres NOTIFY sent in the
 * queuing transaction (delivered on commit, to every worker), and an in-process event for a
 * starter that shares the API's process (tests, a single-process deployment).
 */
import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/postgresql';

export const START_QUEUE_CHANNEL = 'crm_run_starts';

/** Emits 'queued' with the workspace id after a queuing transaction committed. */
export const queuedRuns = new EventEmitter();
queuedRuns.setMaxListeners(100);

/** Inside the queuing transaction: the NOTIFY goes out when it commits (and not if it rolls back). */
export async function notifyQueued(em: EntityManager): Promise<void> {
  await em.execute(`select pg_notify('${START_QUEUE_CHANNEL}', '')`);
}

/**
 * A run finished and left room under its workspace's cap on runs in flight (automations/engine/in-flight.ts): the
 * starter of this process hears it at once (the in-process event); where no starter runs in this process (a backlog
 * worker, `starterHere` false), every worker's starter hears it through NOTIFY, else only its 5 s poll would start the
 * workspace's next queued runs. Given the global entity manager (no transaction), the NOTIFY goes out at once.
 */
export async function roomFreed(em: EntityManager, workspaceId: string, starterHere: boolean): Promise<void> {
  queuedRuns.emit('queued', workspaceId);
  if (!starterHere) await notifyQueued(em);
}
