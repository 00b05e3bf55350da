// When is "the worker back" after the Temporal server restarts? The server answers within a second, but each
// worker's SDK reconnects on its own schedule: Core retries a failed poll with exponential backoff (200 ms doubling,
// up to 10 s; not configurable from TypeScript), so after an outage of a few seconds the workers poll again 1-5 s
// after the server is ready. The issue counts a timer late when it fires more than 2 s after the worker was back,
// so a Temporal fault's window ends when every worker polls again: both the workflow and the activity task queue
// show each worker as a poller (DescribeTaskQueue; the server's poller list starts empty after a restart).
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { delay } from '../../infra/wait';

const { TaskQueueType } = temporal.api.enums.v1;

/** Identities (`pid@host`, the SDK default) polling `taskQueue` for both task types now. */
async function pollingIdentities(connection: Connection, namespace: string, taskQueue: string): Promise<Set<string>> {
  const byType = await Promise.all(
    [TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY].map(async (taskQueueType) => {
      const res = await connection.workflowService.describeTaskQueue({
        namespace,
        taskQueue: { name: taskQueue },
        taskQueueType,
      });
      return new Set((res.pollers ?? []).map((p) => p.identity ?? ''));
    }),
  );
  return new Set([...byType[0]!].filter((id) => byType[1]!.has(id)));
}

/**
 * Resolves with the time every worker of `pids` polls `taskQueue` again (both task types), or with the time `capMs`
 * ran out. Each probe is bounded, so a server that went away again does not hang the soak.
 */
export async function workersPollingAgain(opts: {
  address: string;
  namespace: string;
  taskQueue: string;
  pids: readonly number[];
  capMs: number;
}): Promise<{ at: number; allPolling: boolean }> {
  const end = Date.now() + opts.capMs;
  let connection: Connection | undefined;
  try {
    while (Date.now() < end) {
      try {
        connection ??= await Connection.connect({ address: opts.address, connectTimeout: 1000 });
        const ids = await connection.withDeadline(Date.now() + 1000, () =>
          pollingIdentities(connection!, opts.namespace, opts.taskQueue),
        );
        const pidsPolling = new Set([...ids].map((id) => Number(id.split('@')[0])));
        if (opts.pids.every((pid) => pidsPolling.has(pid))) return { at: Date.now(), allPolling: true };
      } catch {
        // Not answering yet: probe again.
      }
      await delay(100);
    }
    return { at: Date.now(), allPolling: false };
  } finally {
    await connection?.close().catch(() => undefined);
  }
}
