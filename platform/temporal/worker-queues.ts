import type { PlatformConfig } from '../config';

/** The task queues a worker of this role polls (config WORKER_ROLE, TEMPORAL_BACKLOG_TASK_QUEUE). */
export function workerQueues(
  config: Pick<PlatformConfig, 'workerRole' | 'temporalTaskQueue' | 'temporalBacklogTaskQueue'>,
): string[] {
  const backlog = config.temporalBacklogTaskQueue;
  if (config.workerRole === 'backlog') return backlog ? [backlog] : [];
  if (config.workerRole === 'main' || !backlog) return [config.temporalTaskQueue];
  return [config.temporalTaskQueue, backlog];
}
