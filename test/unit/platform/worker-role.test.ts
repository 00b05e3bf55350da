// WORKER_ROLE and TEMPORAL_BACKLOG_TASK_QUEUE (platform/config.ts) and the task queues each worker role polls
// (platform/temporal/worker-queues.ts, bin/worker.ts): the backlog lane of docs/automations.md "Fair sharing between
// workspaces".
import { loadConfig } from '../../../app/config';
import { workerQueues } from '../../../platform/temporal/worker-queues';

const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x' };
const config = (env: Record<string, string>) => loadConfig({ ...base, ...env });

describe('the backlog lane settings', () => {
  it('defaults: role all, backlog queue `<task queue>-backlog`', () => {
    expect(config({}).workerRole).toBe('all');
    expect(config({}).temporalBacklogTaskQueue).toBe('crm-backlog');
    expect(config({ TEMPORAL_TASK_QUEUE: 'q' }).temporalBacklogTaskQueue).toBe('q-backlog');
  });

  it('takes a named backlog queue; `off` or the main queue itself means none', () => {
    expect(config({ TEMPORAL_BACKLOG_TASK_QUEUE: 'bulk' }).temporalBacklogTaskQueue).toBe('bulk');
    expect(config({ TEMPORAL_BACKLOG_TASK_QUEUE: 'off' }).temporalBacklogTaskQueue).toBe('');
    expect(config({ TEMPORAL_TASK_QUEUE: 'q', TEMPORAL_BACKLOG_TASK_QUEUE: 'q' }).temporalBacklogTaskQueue).toBe('');
  });

  it.each(['main', 'backlog', 'all'])('takes WORKER_ROLE=%s', (role) => {
    expect(config({ WORKER_ROLE: role }).workerRole).toBe(role);
  });

  it.each(['', ' '])('an empty WORKER_ROLE (%j) is the default', (role) => {
    expect(config({ WORKER_ROLE: role }).workerRole).toBe('all');
  });

  it.each(['Main', 'api', 'backlog,main', '1'])('refuses WORKER_ROLE=%s with a message naming the roles', (role) => {
    expect(() => config({ WORKER_ROLE: role })).toThrow(/WORKER_ROLE must be one of all, main, backlog/);
  });
});

describe('workerQueues', () => {
  const q = (workerRole: 'all' | 'main' | 'backlog', temporalBacklogTaskQueue = 'crm-backlog') =>
    workerQueues({ workerRole, temporalTaskQueue: 'crm', temporalBacklogTaskQueue });

  it('all: both queues (it drains runs a split deployment left on the backlog queue)', () => {
    expect(q('all')).toEqual(['crm', 'crm-backlog']);
  });
  it('main: the main queue only; backlog: the backlog queue only', () => {
    expect(q('main')).toEqual(['crm']);
    expect(q('backlog')).toEqual(['crm-backlog']);
  });
  it('with the backlog lane off: all and main poll the main queue, backlog nothing (it refuses to start)', () => {
    expect(q('all', '')).toEqual(['crm']);
    expect(q('main', '')).toEqual(['crm']);
    expect(q('backlog', '')).toEqual([]);
  });
});
