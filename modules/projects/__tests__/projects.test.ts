import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { createVia, factories, makeCompany } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const newProject = async (body: Record<string, unknown> = {}) => {
  const res = await t.http.post('/api/v1/projects', { title: 'Website relaunch', ...body });
  expect(res.status).toBe(201);
  return res.body.data as Record<string, any>;
};
const newTask = async (projectId: string, body: Record<string, unknown> = {}) => {
  const res = await t.http.post(`/api/v1/projects/${projectId}/tasks`, { title: 'Design', ...body });
  expect(res.status).toBe(201);
  return res.body.data as Record<string, any>;
};
const countProjects = async (http = t.http) => (await http.get('/api/v1/projects?limit=100')).body.total as number;

describe('projects CRUD', () => {
  it('creates with every field, reads, lists with filters, updates and deletes', async () => {
    const me = (await t.http.get('/api/v1/whoami')).body.data.user._id as string;
    const company = (await makeCompany(t.http)).body.data._id as string;
    const person = await factories.person!(t.http);
    const deal = await factories.deal!(t.http);
    const project = await newProject({
      title: 'Shop build',
      description: 'New shop',
      status: 'planning',
      priority: 'high',
      tags: ['web', 'web'],
      customFields: { phase: 'one' },
      company,
      personRef: person,
      dealRef: deal,
      startDate: '2030-01-01',
      endDate: '2030-03-01',
      budget: { hours: 100, amount: 90000, hourlyRate: 900 },
      stage: 2,
      minTimeEntryWords: 3,
    });
    expect(project).toMatchObject({
      title: 'Shop build',
      status: 'planning',
      priority: 'high',
      owner: me,
      tags: ['web'],
      customFields: { phase: 'one' },
      company,
      personRef: person,
      dealRef: deal,
      startDate: '2030-01-01T00:00:00.000Z',
      budget: { hours: 100, amount: 90000, hourlyRate: 900 },
      stage: 2,
      minTimeEntryWords: 3,
    });
    expect((await t.http.get(`/api/v1/projects/${project._id}`)).body.data).toEqual(project);
    const other = await newProject({ title: 'Intranet' });
    expect(other).toMatchObject({ status: 'active', priority: 'medium', stage: 1, budget: null, customFields: {} });

    const byCompany = await t.http.get(`/api/v1/projects?company=${company}`);
    expect(byCompany.body).toMatchObject({ page: 1, limit: 20, total: 1 });
    expect(byCompany.body.data[0]._id).toBe(project._id);
    expect((await t.http.get('/api/v1/projects?status=planning')).body.data.map((p: any) => p._id)).toEqual([
      project._id,
    ]);
    expect((await t.http.get('/api/v1/projects?q=intra')).body.data.map((p: any) => p._id)).toEqual([other._id]);
    expect((await t.http.get(`/api/v1/projects?owner=${me}&limit=1`)).body).toMatchObject({ limit: 1, total: 2 });

    const updated = await t.http.put(`/api/v1/projects/${project._id}`, {
      title: 'Shop v2',
      customFields: { size: 'L' },
      budget: { hours: 120 },
      company: null,
    });
    expect(updated.body.data).toMatchObject({
      title: 'Shop v2',
      customFields: { phase: 'one', size: 'L' },
      budget: { hours: 120, amount: 90000 },
      company: null,
    });
    expect((await t.http.delete(`/api/v1/projects/${project._id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/projects/${project._id}`)).status).toBe(404);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing title', { title: undefined }, /title/],
    ['empty title', { title: '  ' }, /title/],
    ['title over 300', { title: 'x'.repeat(301) }, /title/],
    ['unknown status', { status: 'open' }, /status/],
    ['unknown priority', { priority: 'urgent' }, /priority/],
    ['owner not in workspace', { owner: '0123456789abcdef01234567' }, /owner/],
    ['unknown company', { company: '0123456789abcdef01234567' }, /company/],
    ['unknown personRef', { personRef: '0123456789abcdef01234567' }, /personRef/],
    ['unknown dealRef', { dealRef: '0123456789abcdef01234567' }, /dealRef/],
    ['malformed company id', { company: 'abc' }, /company/],
    ['unknown stage', { stage: 9 }, /stage/],
    ['negative budget', { budget: { hours: -1 } }, /budget/],
    ['unknown budget key', { budget: { days: 3 } }, /budget/],
    ['bad startDate', { startDate: 'tomorrow' }, /startDate/],
    ['negative minTimeEntryWords', { minTimeEntryWords: -1 }, /minTimeEntryWords/],
    ['tags not strings', { tags: [1] }, /tags/],
  ];
  it.each(bad)('refuses %s with 400 and writes nothing', async (_label, patch, field) => {
    const before = await countProjects();
    const res = await t.http.post('/api/v1/projects', { title: 'P', ...patch });
    expectError(res, 400, field);
    expect(await countProjects()).toBe(before);
  });

  it("refuses a link to another workspace's company", async () => {
    const other = await app.tenant();
    const company = (await makeCompany(other.http)).body.data._id as string;
    expect((await t.http.post('/api/v1/projects', { title: 'P', company })).status).toBe(400);
  });

  it('applies required project custom fields', async () => {
    const ws = await app.tenant();
    const po = { entityType: 'project', key: 'po', label: 'PO number', type: 'number', required: true };
    await createVia(ws.http, '/api/v1/custom-fields', po);
    expect((await ws.http.post('/api/v1/projects', { title: 'P' })).status).toBe(400);
    expect((await ws.http.post('/api/v1/projects', { title: 'P', customFields: { po: 'abc' } })).status).toBe(400);
    expect((await ws.http.post('/api/v1/projects', { title: 'P', customFields: { po: 42 } })).status).toBe(201);
  });
});

describe('preview', () => {
  it('POST and PUT with preview return current, proposed and diff and write nothing', async () => {
    const before = await countProjects();
    const created = await t.http.post('/api/v1/projects', { title: 'Preview me', preview: true });
    expectOk(created, {
      preview: true,
      current: null,
      proposed: { title: 'Preview me', status: 'active' },
      diff: { title: { from: null, to: 'Preview me' } },
    });
    expect(await countProjects()).toBe(before);

    const project = await newProject({ title: 'Real' });
    const viaQuery = await t.http.put(`/api/v1/projects/${project._id}?preview=true`, {
      title: 'Renamed',
      status: 'on_hold',
    });
    expect(viaQuery.body.data).toMatchObject({
      preview: true,
      current: { title: 'Real' },
      proposed: { title: 'Renamed', status: 'on_hold' },
    });
    expect(viaQuery.body.data.diff).toEqual({
      title: { from: 'Real', to: 'Renamed' },
      status: { from: 'active', to: 'on_hold' },
    });
    expect((await t.http.get(`/api/v1/projects/${project._id}`)).body.data.title).toBe('Real');
    expect((await t.http.put(`/api/v1/projects/${project._id}`, { title: 'Renamed' })).body.data.title).toBe('Renamed');
  });
});

describe('move and stats', () => {
  it('moves to a known stage; unknown stages are 400', async () => {
    const project = await newProject();
    expect((await t.http.post(`/api/v1/projects/${project._id}/move`, { stageId: 3 })).body.data.stage).toBe(3);
    expect((await t.http.post(`/api/v1/projects/${project._id}/move`, { stageId: '4' })).body.data.stage).toBe(4);
    for (const stageId of [0, 5, 99, 'review', '0123456789abcdef01234567', 1.5, null]) {
      const res = await t.http.post(`/api/v1/projects/${project._id}/move`, { stageId });
      expect([stageId, res.status]).toEqual([stageId, 400]);
    }
    expect((await t.http.post(`/api/v1/projects/${project._id}/move`, {})).status).toBe(400);
    expect((await t.http.get(`/api/v1/projects/${project._id}`)).body.data.stage).toBe(4);
    expect((await t.http.post('/api/v1/projects/0123456789abcdef01234567/move', { stageId: 2 })).status).toBe(404);
  });

  it('stats count hours (billable and not), budget used and open/done tasks', async () => {
    const project = await newProject({ budget: { hours: 10, amount: 1000, hourlyRate: 100 } });
    const empty = (await t.http.get(`/api/v1/projects/${project._id}/stats`)).body.data;
    expect(empty).toMatchObject({
      hours: { total: 0, billable: 0, nonBillable: 0 },
      tasks: { open: 0, done: 0 },
      budgetUsed: { hours: 0, hoursPercent: 0, amount: 0 },
    });
    await newTask(project._id, { status: 'done' });
    await newTask(project._id);
    await newTask(project._id, { status: 'in_progress' });
    await t.http.post(`/api/v1/projects/${project._id}/time-entries`, { hours: 2, minutes: 30 });
    await t.http.post(`/api/v1/projects/${project._id}/time-entries`, { hours: 1.5, billable: false });
    const stats = (await t.http.get(`/api/v1/projects/${project._id}/stats`)).body.data;
    expect(stats).toMatchObject({
      hours: { total: 4, billable: 2.5, nonBillable: 1.5, entries: 2 },
      budgetUsed: { hours: 4, hoursPercent: 40, amount: 250, amountPercent: 25 },
      tasks: { open: 2, done: 1, total: 3 },
    });
  });
});

describe('project tasks', () => {
  it('creates, lists, reads, updates (with project extras) and deletes tasks of a project', async () => {
    const project = await newProject();
    const task = await newTask(project._id, {
      priority: 'high',
      startDate: '2030-01-02',
      taskType: 'design',
      billable: false,
      order: 2,
    });
    expect(task).toMatchObject({
      title: 'Design',
      project: project._id,
      priority: 'high',
      status: 'to_do',
      startDate: '2030-01-02T00:00:00.000Z',
      taskType: 'design',
      billable: false,
      order: 2,
    });
    const first = await newTask(project._id, { title: 'Kickoff', order: 1 });
    const list = await t.http.get(`/api/v1/projects/${project._id}/tasks`);
    expect(list.body).toMatchObject({ page: 1, limit: 20, total: 2 });
    expect(list.body.data.map((x: any) => x._id)).toEqual([first._id, task._id]);

    const updated = await t.http.put(`/api/v1/projects/tasks/${task._id}`, {
      status: 'done',
      billable: true,
      order: 0,
      taskType: '',
    });
    expect(updated.body.data).toMatchObject({
      status: 'done',
      stage: 4,
      billable: true,
      order: 0,
      taskType: null,
      project: project._id,
    });
    expect((await t.http.get(`/api/v1/projects/tasks/${task._id}`)).body.data).toEqual(updated.body.data);
    // The generic task endpoints see the same task (its parent is the project).
    expect((await t.http.get(`/api/v1/tasks/${task._id}`)).body.data).toMatchObject({
      project: project._id,
      status: 'done',
    });
    await t.http.put(`/api/v1/projects/tasks/${task._id}`, { order: 5 });
    const events = await eventsFor(app.runtime.deps.orm, task._id);
    expect(events.map((e) => e.type)).toEqual(['task_created', 'task_updated', 'task_updated', 'task_updated']);

    expect((await t.http.delete(`/api/v1/projects/tasks/${task._id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/projects/tasks/${task._id}`)).status).toBe(404);
  });

  it('generic tasks accept a project parent (400 only for an unknown project)', async () => {
    const project = await newProject();
    const res = await t.http.post('/api/v1/tasks', { title: 'Generic', project: project._id });
    expect(res.status).toBe(201);
    expect((await t.http.get(`/api/v1/projects/${project._id}/tasks`)).body.data.map((x: any) => x._id)).toContain(
      res.body.data._id,
    );
    expect((await t.http.post('/api/v1/tasks', { title: 'Generic', project: '0123456789abcdef01234567' })).status).toBe(
      400,
    );
  });

  it('a task of a company is not a project task', async () => {
    const taskId = await factories.task!(t.http);
    expect((await t.http.get(`/api/v1/projects/tasks/${taskId}`)).status).toBe(404);
    expect((await t.http.put(`/api/v1/projects/tasks/${taskId}`, { title: 'x' })).status).toBe(404);
  });

  const badTask: [string, Record<string, unknown>, RegExp][] = [
    ['missing title', { title: undefined }, /title/],
    ['bad status', { status: 'open' }, /status/],
    ['bad billable', { billable: 'yes' }, /billable/],
    ['bad order', { order: 'first' }, /order/],
    ['bad startDate', { startDate: 'soon' }, /startDate/],
    ['taskType over 100', { taskType: 'x'.repeat(101) }, /taskType/],
  ];
  it.each(badTask)('refuses a project task with %s', async (_l, patch, field) => {
    const project = await newProject();
    const res = await t.http.post(`/api/v1/projects/${project._id}/tasks`, { title: 'T', ...patch });
    expectError(res, 400, field);
    expect((await t.http.get(`/api/v1/projects/${project._id}/tasks`)).body.total).toBe(0);
  });

  it('deleting a project removes its tasks', async () => {
    const project = await newProject();
    const task = await newTask(project._id);
    await t.http.delete(`/api/v1/projects/${project._id}`);
    expect((await t.http.get(`/api/v1/tasks/${task._id}`)).status).toBe(404);
    expect((await eventsFor(app.runtime.deps.orm, task._id)).map((e) => e.type)).toEqual([
      'task_created',
      'task_deleted',
    ]);
  });
});

describe('comments', () => {
  let taskId: string;
  beforeAll(async () => {
    taskId = (await newTask((await newProject())._id))._id;
  });
  const post = (body: Record<string, unknown>) => t.http.post(`/api/v1/projects/tasks/${taskId}/comments`, body);

  it('strips HTML, defaults to customer visibility, lists and edits', async () => {
    const res = await post({ content: '<p>Hello <b>team</b></p><script>alert(1)</script>' });
    expectCreated(res, { content: 'Hello team', internal: false, visibility: 'customer', taskId });
    const id = res.body.data._id;
    const patched = await t.http.patch(`/api/v1/projects/tasks/${taskId}/comments/${id}`, { internal: true });
    expect(patched.body.data).toMatchObject({ content: 'Hello team', internal: true, visibility: 'internal' });
    const back = await t.http.patch(`/api/v1/projects/tasks/${taskId}/comments/${id}`, {
      visibility: 'customer',
      content: '<i>Edited</i>',
    });
    expect(back.body.data).toMatchObject({ content: 'Edited', internal: false, visibility: 'customer' });
    const list = await t.http.get(`/api/v1/projects/tasks/${taskId}/comments`);
    expect(list.body.data.find((c: any) => c._id === id)).toEqual(back.body.data);
    expect(
      (await t.http.patch(`/api/v1/projects/tasks/${taskId}/comments/0123456789abcdef01234567`, { content: 'x' }))
        .status,
    ).toBe(404);
  });

  it('accepts 5,000 characters after stripping and refuses 5,001', async () => {
    const atLimit = await post({ content: `<div>${'a'.repeat(5000)}</div>` });
    expect(atLimit.status).toBe(201);
    expect(atLimit.body.data.content).toHaveLength(5000);
    const over = await post({ content: 'a'.repeat(5001) });
    expectError(over, 400, /content/);
    const id = atLimit.body.data._id;
    expect(
      (await t.http.patch(`/api/v1/projects/tasks/${taskId}/comments/${id}`, { content: 'b'.repeat(5001) })).status,
    ).toBe(400);
    expect(
      (await t.http.patch(`/api/v1/projects/tasks/${taskId}/comments/${id}`, { content: 'b'.repeat(5000) })).status,
    ).toBe(200);
  });

  const agreement: {
    label: string;
    patch: Record<string, unknown>;
    status: number;
    expected: Record<string, unknown> | null;
  }[] = [
    {
      label: 'internal true + visibility internal',
      patch: { internal: true, visibility: 'internal' },
      status: 201,
      expected: { internal: true, visibility: 'internal' },
    },
    {
      label: 'internal false + visibility customer',
      patch: { internal: false, visibility: 'customer' },
      status: 201,
      expected: { internal: false, visibility: 'customer' },
    },
    {
      label: 'visibility internal alone',
      patch: { visibility: 'internal' },
      status: 201,
      expected: { internal: true, visibility: 'internal' },
    },
    {
      label: 'internal true alone',
      patch: { internal: true },
      status: 201,
      expected: { internal: true, visibility: 'internal' },
    },
    {
      label: 'internal true + visibility customer',
      patch: { internal: true, visibility: 'customer' },
      status: 400,
      expected: null,
    },
    {
      label: 'internal false + visibility internal',
      patch: { internal: false, visibility: 'internal' },
      status: 400,
      expected: null,
    },
    { label: 'unknown visibility', patch: { visibility: 'public' }, status: 400, expected: null },
    { label: 'internal not boolean', patch: { internal: 'yes' }, status: 400, expected: null },
    { label: 'missing content', patch: { content: undefined }, status: 400, expected: null },
    { label: 'only markup', patch: { content: '<p> </p>' }, status: 400, expected: null },
  ];
  it.each(agreement)('$label → $status', async ({ patch, status, expected }) => {
    const before = (await t.http.get(`/api/v1/projects/tasks/${taskId}/comments?limit=1`)).body.total;
    const res = await post({ content: 'Note', ...patch });
    expect(res.status).toBe(status);
    if (expected) expect(res.body.data).toMatchObject(expected);
    else expect((await t.http.get(`/api/v1/projects/tasks/${taskId}/comments?limit=1`)).body.total).toBe(before);
  });

  it('PATCH refuses a contradiction with the stored value only when both are sent', async () => {
    const id = (await post({ content: 'x', internal: true })).body.data._id;
    expect(
      (
        await t.http.patch(`/api/v1/projects/tasks/${taskId}/comments/${id}`, {
          internal: false,
          visibility: 'internal',
        })
      ).status,
    ).toBe(400);
    expect((await t.http.patch(`/api/v1/projects/tasks/${taskId}/comments/${id}`, {})).body.data).toMatchObject({
      internal: true,
      visibility: 'internal',
    });
  });
});

describe('time entries', () => {
  it('logs hours plus minutes, defaults billable and date, filters by task', async () => {
    const project = await newProject();
    const task = await newTask(project._id);
    const before = Date.now();
    const res = await t.http.post(`/api/v1/projects/${project._id}/time-entries`, {
      hours: 1,
      minutes: 45,
      taskId: task._id,
    });
    expectCreated(res, { hours: 1.75, billable: true, taskId: task._id, projectId: project._id });
    expect(Date.parse(res.body.data.date)).toBeGreaterThanOrEqual(before - 1000);
    await t.http.post(`/api/v1/projects/${project._id}/time-entries`, {
      hours: 0.5,
      billable: false,
      date: '2030-02-01',
    });
    expect((await t.http.get(`/api/v1/projects/${project._id}/time-entries`)).body).toMatchObject({ total: 2 });
    const byTask = await t.http.get(`/api/v1/projects/${project._id}/time-entries?taskId=${task._id}`);
    expect(byTask.body.data.map((e: any) => e._id)).toEqual([res.body.data._id]);
  });

  it('refuses bad entries', async () => {
    const project = await newProject();
    const otherTask = await newTask((await newProject())._id);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /hours/],
      [{ hours: 0 }, /hours/],
      [{ hours: -1 }, /hours/],
      [{ hours: 'two' }, /hours/],
      [{ hours: 0, minutes: 30 }, /hours/],
      [{ hours: 1, minutes: -5 }, /minutes/],
      [{ hours: 1, taskId: otherTask._id }, /taskId/],
      [{ hours: 1, taskId: '0123456789abcdef01234567' }, /taskId/],
      [{ hours: 1, date: 'yesterday' }, /date/],
      [{ hours: 1, billable: 'no' }, /billable/],
    ];
    for (const [body, field] of cases) {
      const res = await t.http.post(`/api/v1/projects/${project._id}/time-entries`, body);
      expect([body, res.status, res.body.error]).toEqual([body, 400, expect.stringMatching(field)]);
    }
    expect((await t.http.get(`/api/v1/projects/${project._id}/time-entries`)).body.total).toBe(0);
  });

  it("needs a description of at least the project's minimum word count", async () => {
    const project = await newProject({ minTimeEntryWords: 3 });
    const url = `/api/v1/projects/${project._id}/time-entries`;
    for (const description of [undefined, '', 'one two', '  one   two  ']) {
      const res = await t.http.post(url, { hours: 1, description });
      expect([description, res.status]).toEqual([description, 400]);
      expect(res.body.error).toMatch(/description/);
    }
    expect((await t.http.post(url, { hours: 1, description: 'one two three' })).status).toBe(201);
    const loose = await newProject();
    expect((await t.http.post(`/api/v1/projects/${loose._id}/time-entries`, { hours: 1 })).status).toBe(201);
  });
});
