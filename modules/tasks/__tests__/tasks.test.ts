import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { createVia, factories, makeCompany } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { unknownParentCases } from '../../../test/support/references';
import { expectCreated, expectError, expectOk, expectRejectedCreate } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let other: Tenant;
let companyId: string;
withTestApp((s) => ({ app, t } = s));
/** Records of t: the structural rules (one parent, a slug with a record) are checked after the references exist. */
const real: Record<'person' | 'lead' | 'record', string> = { person: '', lead: '', record: '' };
beforeAll(async () => {
  other = await app.tenant();
  companyId = (await makeCompany(t.http)).body.data._id;
  real.person = await factories.person!(t.http);
  real.lead = await factories.lead!(t.http);
  real.record = await factories['custom-object-record']!(t.http);
});

const MISSING = '0123456789abcdef01234567';
const countTasks = async (): Promise<number> => (await t.http.get('/api/v1/tasks?limit=1')).body.total;
const newTask = (body: Record<string, unknown> = {}) =>
  t.http.post('/api/v1/tasks', { title: 'Call back', company: companyId, ...body });

describe('GET /api/v1/task-flow', () => {
  it('creates the default flow lazily: stages 1-4 and completedStageId 4', async () => {
    const res = await t.http.get('/api/v1/task-flow');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      stages: [
        { id: 1, title: 'To do', order: 1, status: 'to_do' },
        { id: 2, title: 'In progress', order: 2, status: 'in_progress' },
        { id: 3, title: 'Blocked', order: 3, status: 'blocked' },
        { id: 4, title: 'Done', order: 4, status: 'done' },
      ],
      completedStageId: 4,
    });
    // Concurrent first reads in a new workspace agree (one flow row wins).
    const fresh = await app.tenant();
    const all = await Promise.all(Array.from({ length: 5 }, () => fresh.http.get('/api/v1/task-flow')));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
  });
});

describe('POST /api/v1/tasks', () => {
  it('creates a task with defaults (caller as owner and assignee, to_do in stage 1) and emits events', async () => {
    const res = await newTask({
      tags: ['urgent', 'urgent'],
      customFields: { source: 'web' },
      deadline: '2030-05-01',
      estimatedHours: 2.5,
      taskValue: 0,
    });
    const task = expectCreated(res, {
      title: 'Call back',
      status: 'to_do',
      stage: 1,
      priority: 'medium',
      owner: t.userId,
      assignees: [t.userId],
      company: companyId,
      personRef: null,
      project: null,
      tags: ['urgent'],
      customFields: { source: 'web' },
      estimatedHours: 2.5,
      taskValue: 0,
      completedAt: null,
    });
    expect(task.deadline).toBe('2030-05-01T00:00:00.000Z');
    const events = await eventsFor(app.runtime.deps.orm, task._id);
    expect(events.map((e) => e.type)).toEqual(['task_created', 'tag_added']);
    expect(events[0]!.payload.task.title).toBe('Call back');
    // A history row on the parent's feed, not in its activities list.
    const feed = await t.http.get(`/api/v1/companies/${companyId}/activity-feed`);
    expect(feed.body.data[0]).toMatchObject({
      type: 'task_created',
      system: true,
      taskRef: task._id,
      companyId,
      entityType: 'company',
    });
  });

  it.each([
    ['personRef', () => factories.person!(t.http)],
    ['leadRef', () => factories.lead!(t.http)],
    ['dealRef', () => factories.deal!(t.http)],
  ])('accepts %s as the parent', async (field, make) => {
    const id = await make();
    const res = await t.http.post('/api/v1/tasks', { title: 'x', [field]: id, priority: 'critical' });
    expectCreated(res, { [field]: id, company: null, priority: 'critical' });
  });

  it('status done puts the task in the completed stage; stage wins over status', async () => {
    const done = (await newTask({ status: 'done' })).body.data;
    expect(done).toMatchObject({ status: 'done', stage: 4 });
    expect(done.completedAt).toEqual(expect.any(String));
    const both = (await newTask({ status: 'done', stage: 2 })).body.data;
    expect(both).toMatchObject({ status: 'in_progress', stage: 2 });
    const completed = (await newTask({ stage: 4 })).body.data;
    expect(completed).toMatchObject({ status: 'done', stage: 4 });
  });

  const bad: [string, () => Record<string, unknown>, RegExp][] = [
    [
      'status open',
      () => ({ title: 'x', company: companyId, status: 'open' }),
      /status: must be one of to_do, in_progress, blocked, done/,
    ],
    ['status cancelled', () => ({ title: 'x', company: companyId, status: 'cancelled' }), /status/],
    ['no parent', () => ({ title: 'x' }), /exactly one parent is required/],
    [
      'two parents',
      () => ({ title: 'x', company: companyId, personRef: real.person }),
      /exactly one parent is allowed/,
    ],
    [
      'companyRef is not the field name',
      () => ({ title: 'x', companyRef: companyId }),
      /exactly one parent is required/,
    ],
    ...unknownParentCases({ title: 'x' }, 'machines', () => real.record),
    ['project (none exist yet)', () => ({ title: 'x', project: MISSING }), /project: no project with id/],
    ['malformed parent id', () => ({ title: 'x', company: 'nope' }), /company/],
    ['missing title', () => ({ company: companyId }), /title/],
    ['title over 500', () => ({ title: 'x'.repeat(501), company: companyId }), /title.*500/],
    [
      'priority urgent',
      () => ({ title: 'x', company: companyId, priority: 'urgent' }),
      /priority: must be one of low, medium, high, critical/,
    ],
    ['unknown stage', () => ({ title: 'x', company: companyId, stage: 9 }), /stage: unknown task-flow stage 9/],
    ['stage not integer', () => ({ title: 'x', company: companyId, stage: 1.5 }), /stage/],
    ['deadline not a date', () => ({ title: 'x', company: companyId, deadline: 'tomorrow' }), /deadline/],
    [
      'negative estimatedHours',
      () => ({ title: 'x', company: companyId, estimatedHours: -1 }),
      /estimatedHours: must be at least 0/,
    ],
    ['negative taskValue', () => ({ title: 'x', company: companyId, taskValue: -0.01 }), /taskValue/],
    [
      'assignee of another workspace',
      () => ({ title: 'x', company: companyId, assignees: [other.userId] }),
      /assignees\[0\]: no user with id/,
    ],
    [
      'owner of another workspace',
      () => ({ title: 'x', company: companyId, owner: other.userId }),
      /owner: no user with id/,
    ],
    [
      '51 assignees',
      () => ({ title: 'x', company: companyId, assignees: Array.from({ length: 51 }, () => t.userId) }),
      /at most 50 assignees/,
    ],
    ['customFields not an object', () => ({ title: 'x', company: companyId, customFields: ['a'] }), /customFields/],
    [
      '101 tags',
      () => ({ title: 'x', company: companyId, tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }),
      /tags/,
    ],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/tasks', body(), message, countTasks);
  });

  it('a parent of another workspace is unknown (400)', async () => {
    const foreign = await factories.company!(other.http);
    expectError(
      await t.http.post('/api/v1/tasks', { title: 'x', company: foreign }),
      400,
      /company: no company with id/,
    );
  });

  it('accepts the boundaries: 500-char title, 50 assignees, 100 tags', async () => {
    const res = await newTask({
      title: 't'.repeat(500),
      assignees: Array.from({ length: 50 }, () => t.userId),
      tags: Array.from({ length: 100 }, (_, i) => `t${i}`),
    });
    expect(res.status).toBe(201);
    expect(res.body.data.assignees).toEqual([t.userId]);
    expect(res.body.data.tags).toHaveLength(100);
  });

  it('validates customFields against task definitions', async () => {
    const mine = await app.tenant();
    await createVia(mine.http, '/api/v1/custom-fields', {
      entityType: 'task',
      key: 'effort',
      label: 'Effort',
      type: 'number',
    });
    const company = (await makeCompany(mine.http)).body.data._id;
    const wrong = await mine.http.post('/api/v1/tasks', { title: 'x', company, customFields: { effort: 'lots' } });
    expectError(wrong, 400, /customFields.effort: must be a number/);
    const right = await mine.http.post('/api/v1/tasks', {
      title: 'x',
      company,
      customFields: { effort: 3, free: 'form' },
    });
    expect(right.status).toBe(201);
    const put = await mine.http.put(`/api/v1/tasks/${right.body.data._id}`, { customFields: { effort: 'x' } });
    expect(put.status).toBe(400);
  });
});

describe('PUT /api/v1/tasks/:id (States table)', () => {
  it('status done → completed stage; stage → status follows; completed stage → done; both → stage wins', async () => {
    const id = (await newTask()).body.data._id;
    const put = (body: Record<string, unknown>) => t.http.put(`/api/v1/tasks/${id}`, body);
    expect((await put({ status: 'done' })).body.data).toMatchObject({ status: 'done', stage: 4 });
    expect((await put({ stage: 3 })).body.data).toMatchObject({ status: 'blocked', stage: 3, completedAt: null });
    expect((await put({ stage: 4 })).body.data).toMatchObject({ status: 'done', stage: 4 });
    expect((await put({ stage: 2, status: 'done' })).body.data).toMatchObject({ status: 'in_progress', stage: 2 });
    expect((await put({ status: 'to_do' })).body.data).toMatchObject({ status: 'to_do', stage: 1 });
    const refused = await put({ status: 'open' });
    expect(refused.status).toBe(400);
    expect((await put({ stage: 0 })).status).toBe(400);
    expect((await t.http.get(`/api/v1/tasks/${id}`)).body.data).toMatchObject({ status: 'to_do', stage: 1 });
  });

  it("completing a task writes task_completed on the parent's feed and emits task_updated with changes", async () => {
    const person = await factories.person!(t.http);
    const id = (await t.http.post('/api/v1/tasks', { title: 'Send offer', personRef: person })).body.data._id;
    const res = await t.http.put(`/api/v1/tasks/${id}`, { status: 'done' });
    expect(res.body.data.completedAt).toEqual(expect.any(String));
    const feed = (await t.http.get(`/api/v1/people/${person}/activity-feed`)).body.data;
    expect(feed.map((a: any) => a.type).slice(0, 2)).toEqual(['task_completed', 'task_created']);
    const events = await eventsFor(app.runtime.deps.orm, id);
    const updated = events.find((e) => e.type === 'task_updated')!;
    expect(updated.payload.changes.status).toEqual({ from: 'to_do', to: 'done' });
    expect(updated.payload.changes.stage).toEqual({ from: 1, to: 4 });
  });

  it('merges customFields partially, changes tags with events, moves the parent, and an unchanged PUT emits nothing', async () => {
    const task = (await newTask({ customFields: { a: 1, b: 2 }, tags: ['x'] })).body.data;
    const deal = await factories.deal!(t.http);
    const res = await t.http.put(`/api/v1/tasks/${task._id}`, {
      customFields: { b: 3, a: null, c: 'new' },
      tags: ['y'],
      dealRef: deal,
      assignees: [],
    });
    expectOk(res, {
      customFields: { b: 3, c: 'new' },
      tags: ['y'],
      dealRef: deal,
      company: null,
      assignees: [],
    });
    const types = (await eventsFor(app.runtime.deps.orm, task._id)).map((e) => e.type);
    expect(types).toEqual(['task_created', 'tag_added', 'task_updated', 'tag_added', 'tag_removed']);
    await t.http.put(`/api/v1/tasks/${task._id}`, { tags: ['y'] });
    expect((await eventsFor(app.runtime.deps.orm, task._id)).length).toBe(types.length);
  });

  it.each([
    ['clearing the only parent', { company: null }, /exactly one parent is required/],
    ['two parents', () => ({ personRef: real.person, leadRef: real.lead }), /exactly one parent is allowed/],
    ['unknown new parent', { leadRef: MISSING }, /leadRef: no lead with id/],
    ['owner of another workspace', () => ({ owner: other.userId }), /owner: no user/],
    ['empty title', { title: '' }, /title/],
    ['priority open', { priority: 'open' }, /priority/],
  ])('400 for %s, task unchanged', async (_label, body, message) => {
    const task = (await newTask()).body.data;
    const res = await t.http.put(`/api/v1/tasks/${task._id}`, typeof body === 'function' ? body() : body);
    expectError(res, 400, message);
    expect((await t.http.get(`/api/v1/tasks/${task._id}`)).body.data).toEqual(task);
  });
});

describe('GET/DELETE /api/v1/tasks', () => {
  it('filters by status, priority, owner (aliases), assignee, project, q, deadline window, updatedSince; view=summary', async () => {
    const mine = await app.tenant();
    const company = (await makeCompany(mine.http)).body.data._id;
    const mk = (body: Record<string, unknown>) =>
      mine.http.post('/api/v1/tasks', { company, ...body }).then((r) => r.body.data);
    const a = await mk({ title: 'Alpha report', priority: 'high', deadline: '2030-01-10' });
    const b = await mk({ title: 'Beta call', status: 'blocked', assignees: [], deadline: '2030-02-10' });
    await new Promise((r) => setTimeout(r, 20));
    const mark = new Date().toISOString();
    await mine.http.put(`/api/v1/tasks/${a._id}`, { description: 'touched' });
    const ids = async (qs: string) => (await mine.http.get(`/api/v1/tasks?${qs}`)).body.data.map((x: any) => x._id);
    expect(await ids('status=blocked')).toEqual([b._id]);
    expect(await ids('priority=high')).toEqual([a._id]);
    expect(await ids(`ownerId=${mine.userId}`)).toEqual([b._id, a._id]);
    expect(await ids(`owner=${mine.userId}`)).toEqual([b._id, a._id]);
    expect(await ids(`assignee=${mine.userId}`)).toEqual([a._id]);
    expect(await ids(`ownerId=${MISSING}`)).toEqual([]);
    expect(await ids('q=beta')).toEqual([b._id]);
    expect(await ids('dateFrom=2030-02-01&dateTo=2030-02-10')).toEqual([b._id]);
    expect(await ids(`updatedSince=${encodeURIComponent(mark)}`)).toEqual([a._id]);
    expect(await ids(`project=${MISSING}`)).toEqual([]);
    const summary = await mine.http.get('/api/v1/tasks?view=summary&limit=1');
    expect(Object.keys(summary.body.data[0]).sort()).toEqual([
      '_id',
      'assignees',
      'deadline',
      'owner',
      'priority',
      'stage',
      'status',
      'title',
      'updatedAt',
    ]);
    expect(summary.body).toMatchObject({ page: 1, limit: 1, total: 2 });
  });

  it.each([
    ['limit=101', /limit must be at most 100/],
    ['status=open', /status/],
    ['priority=x', /priority/],
    ['ownerId=me', /ownerId/],
    ['dateFrom=soon', /dateFrom/],
  ])('400 for ?%s', async (qs, message) => {
    expectError(await t.http.get(`/api/v1/tasks?${qs}`), 400, message);
  });

  it('accepts limit=100; ignores unknown parameters (tasks are not a strict list)', async () => {
    expect((await t.http.get('/api/v1/tasks?limit=100&whatever=1')).status).toBe(200);
  });

  it('deletes a task: { ok: true }, then 404, task_deleted emitted; malformed ids 404', async () => {
    const id = (await newTask()).body.data._id;
    const del = await t.http.delete(`/api/v1/tasks/${id}`);
    expect(del.body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/tasks/${id}`)).status).toBe(404);
    expect((await t.http.delete(`/api/v1/tasks/${id}`)).status).toBe(404);
    expect((await eventsFor(app.runtime.deps.orm, id)).map((e) => e.type)).toContain('task_deleted');
    expect((await t.http.get('/api/v1/tasks/not-an-id')).status).toBe(404);
  });
});
