/**
 * Issue 27 part 4: finished runs (executions with their step logs, enrollments with their steps) are
 * pruned after their workspace's retention (`crm workspace retention`, default 30 days), in batches
 * that skip rows being written; running executions and active enrollments are never pruned.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import { runCrm as crm, runCrmJson as json, withTestOrm } from '../support/cli';
import { AutomationExecution, AutomationStep } from '../../modules/automations/automation.entity';
import { newId } from '../../platform/ids';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { SequenceEnrollment, SequenceStep } from '../../modules/sequences/sequence.entity';
import { pruneFinishedRuns } from '../../modules/workspaces/run-retention';

let orm: MikroORM;
withTestOrm((o) => (orm = o));

const daysAgo = (d: number): Date => new Date(Date.now() - d * 86_400_000);

async function execution(
  workspaceId: string,
  o: { status: string; startedDaysAgo: number; finishedDaysAgo: number | null; parent?: string; steps?: number },
): Promise<string> {
  const em = forkForWorkspace(orm.em, workspaceId);
  const _id = newId(daysAgo(o.startedDaysAgo));
  const startedAt = daysAgo(o.startedDaysAgo);
  em.create(AutomationExecution, {
    _id,
    workspaceId,
    automationId: newId(),
    automationName: 'Retention',
    automationVersion: 1,
    graph: { nodes: [], edges: [], executionSettings: {} as never },
    status: o.status as AutomationExecution['status'],
    triggerType: 'lead_created',
    triggerKey: `evt-${_id}`,
    entityType: 'lead',
    entityId: newId(),
    context: {},
    workflowId: `automation-execution:${workspaceId}:${_id}`,
    parentExecutionId: o.parent ?? null,
    startedAt,
    finishedAt: o.finishedDaysAgo === null ? null : daysAgo(o.finishedDaysAgo),
  });
  for (let i = 0; i < (o.steps ?? 2); i++)
    em.create(AutomationStep, {
      workspaceId,
      executionId: _id,
      nodeId: `n${i}`,
      nodeType: 'action',
      status: 'completed',
      startedAt,
    });
  await em.flush();
  return _id;
}

async function enrollment(
  workspaceId: string,
  o: { status: string; enrolledDaysAgo: number; finishedDaysAgo: number | null },
): Promise<string> {
  const em = forkForWorkspace(orm.em, workspaceId);
  const _id = newId(daysAgo(o.enrolledDaysAgo));
  const sequenceId = newId();
  em.create(SequenceEnrollment, {
    _id,
    workspaceId,
    sequenceId,
    sequenceName: 'Retention',
    entityType: 'lead',
    entityId: newId(),
    links: {} as never,
    status: o.status as SequenceEnrollment['status'],
    source: 'api',
    snapshot: {} as never,
    workflowId: `sequence-enrollment:${workspaceId}:${_id}`,
    enrolledAt: daysAgo(o.enrolledDaysAgo),
    finishedAt: o.finishedDaysAgo === null ? null : daysAgo(o.finishedDaysAgo),
    unsubscribeToken: newId() + newId(),
  });
  em.create(SequenceStep, {
    workspaceId,
    enrollmentId: _id,
    sequenceId,
    nodeId: 'start',
    nodeType: 'start',
    status: 'completed',
    startedAt: daysAgo(o.enrolledDaysAgo),
  });
  await em.flush();
  return _id;
}

async function remaining(workspaceId: string) {
  const em = forkForWorkspace(orm.em, workspaceId);
  const executions = (await em.find(AutomationExecution, {}, { fields: ['_id'] })).map((e) => e._id).sort();
  const executionSteps = await em.count(AutomationStep, {});
  const enrollments = (await em.find(SequenceEnrollment, {}, { fields: ['_id'] })).map((e) => e._id).sort();
  const enrollmentSteps = await em.count(SequenceStep, {});
  return { executions, executionSteps, enrollments, enrollmentSteps };
}

const newWorkspace = async (): Promise<string> =>
  (await json(['workspace', 'create', '--name', `Retention ${newId()}`])).workspaceId as string;

describe('run retention', () => {
  it('prunes finished runs past the default 30 days; running, queued, recent and active ones stay', async () => {
    const ws = await newWorkspace();
    const oldDone = await execution(ws, { status: 'completed', startedDaysAgo: 40, finishedDaysAgo: 31 });
    const oldFailed = await execution(ws, { status: 'failed', startedDaysAgo: 45, finishedDaysAgo: 44 });
    const recent = await execution(ws, { status: 'completed', startedDaysAgo: 10, finishedDaysAgo: 10 });
    const running = await execution(ws, { status: 'running', startedDaysAgo: 90, finishedDaysAgo: null });
    const queued = await execution(ws, { status: 'queued', startedDaysAgo: 60, finishedDaysAgo: null });
    // A fan-out child finished long ago whose parent still runs: the parent may still read it.
    const child = await execution(ws, {
      status: 'completed',
      startedDaysAgo: 80,
      finishedDaysAgo: 79,
      parent: running,
    });
    const oldEnrollment = await enrollment(ws, { status: 'completed', enrolledDaysAgo: 50, finishedDaysAgo: 35 });
    const exited = await enrollment(ws, { status: 'exited', enrolledDaysAgo: 50, finishedDaysAgo: 31 });
    const active = await enrollment(ws, { status: 'active', enrolledDaysAgo: 200, finishedDaysAgo: null });
    const paused = await enrollment(ws, { status: 'paused', enrolledDaysAgo: 200, finishedDaysAgo: null });
    const recentEnrollment = await enrollment(ws, { status: 'completed', enrolledDaysAgo: 20, finishedDaysAgo: 5 });

    // Batches of one: the pass goes on until nothing is left.
    const pruned = await pruneFinishedRuns(orm.em.fork(), { batch: 1 });
    expect(pruned.executions).toBeGreaterThanOrEqual(2);
    expect(pruned.executionSteps).toBeGreaterThanOrEqual(4);
    expect(pruned.enrollments).toBeGreaterThanOrEqual(2);
    expect(pruned.enrollmentSteps).toBeGreaterThanOrEqual(2);

    const left = await remaining(ws);
    expect(left.executions).toEqual([recent, running, queued, child].sort());
    expect(left.executions).not.toContain(oldDone);
    expect(left.executions).not.toContain(oldFailed);
    expect(left.executionSteps).toBe(8);
    expect(left.enrollments).toEqual([active, paused, recentEnrollment].sort());
    expect(left.enrollments).not.toContain(oldEnrollment);
    expect(left.enrollments).not.toContain(exited);
    expect(left.enrollmentSteps).toBe(3);
  });

  it('honours the workspace setting (crm workspace retention), workspace by workspace', async () => {
    const short = await newWorkspace();
    const standard = await newWorkspace();
    expect(await json(['workspace', 'retention', '--workspace', short, '--days', '7'])).toEqual({
      workspaceId: short,
      runRetentionDays: 7,
    });
    const shortOld = await execution(short, { status: 'completed', startedDaysAgo: 9, finishedDaysAgo: 8 });
    const shortNew = await execution(short, { status: 'completed', startedDaysAgo: 6, finishedDaysAgo: 6 });
    const shortEnrollment = await enrollment(short, { status: 'completed', enrolledDaysAgo: 9, finishedDaysAgo: 8 });
    const standardRun = await execution(standard, { status: 'completed', startedDaysAgo: 9, finishedDaysAgo: 8 });
    await pruneFinishedRuns(orm.em.fork());
    expect((await remaining(short)).executions).toEqual([shortNew]);
    expect((await remaining(short)).executions).not.toContain(shortOld);
    expect((await remaining(short)).enrollments).not.toContain(shortEnrollment);
    expect((await remaining(standard)).executions).toEqual([standardRun]);

    // Longer again: nothing more goes.
    await json(['workspace', 'retention', '--workspace', short, '--days', '3650']);
    await pruneFinishedRuns(orm.em.fork());
    expect((await remaining(short)).executions).toEqual([shortNew]);
  });

  it('a row being written is skipped (never waited for) and pruned by a later pass', async () => {
    const ws = await newWorkspace();
    const old = await execution(ws, { status: 'failed', startedDaysAgo: 60, finishedDaysAgo: 59 });
    const em = orm.em.fork();
    await em.begin();
    try {
      await em.execute('select id from automation_execution where id = ? for update', [old]);
      // The lock is held until the commit below: a pass that waited for the row would never finish before it. (A bound
      // on the pass's time instead failed at load 9 in a full run: 6.7 s.)
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), 30_000)));
      const pass = pruneFinishedRuns(orm.em.fork()).then(() => 'done' as const);
      expect(await Promise.race([pass, waited])).toBe('done');
      clearTimeout(timer);
      expect((await remaining(ws)).executions).toEqual([old]);
    } finally {
      await em.commit();
    }
    await pruneFinishedRuns(orm.em.fork());
    expect((await remaining(ws)).executions).toEqual([]);
    expect((await remaining(ws)).executionSteps).toBe(0);
  });

  it.each([['0'], ['3651'], ['-1'], ['1.5'], ['ten'], ['']])('--days %p is refused (exit 2)', async (days) => {
    const res = await crm(['workspace', 'retention', '--workspace', newId(), '--days', days, '--json']);
    expect(res.code).toBe(2);
    // `-1` reads as a flag (usage error); the others fail the range check (validation).
    expect(['validation', 'usage']).toContain(JSON.parse(res.stdout.trim().split('\n').pop()!).code);
  });

  it('--days 1 and 3650 are accepted; an unknown workspace is 1 (not found)', async () => {
    const ws = await newWorkspace();
    expect((await json(['workspace', 'retention', '--workspace', ws, '--days', '1'])).runRetentionDays).toBe(1);
    expect((await json(['workspace', 'retention', '--workspace', ws, '--days', '3650'])).runRetentionDays).toBe(3650);
    const res = await crm(['workspace', 'retention', '--workspace', newId(), '--days', '30', '--json']);
    expect(res.code).toBe(1);
  });
});
