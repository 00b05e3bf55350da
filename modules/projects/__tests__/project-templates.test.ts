import { startTestApp, type Tenant, type TestApp } from '../../../test/support/app';
import { factories, makeCompany } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let other: Tenant;
beforeAll(async () => {
  app = await startTestApp();
  [t, other] = await Promise.all([app.tenant('Templates A'), app.tenant('Templates B')]);
  TEMPLATE.flowRef = await factories.flow!(t.http);
});
afterAll(() => app.close());

// flowRef names a flow of the workspace (set once the flow exists).
const TEMPLATE: Record<string, unknown> = {
  name: 'Website build',
  description: 'Standard site',
  taskTemplates: [
    { title: 'Kick-off', priority: 'high' },
    { title: 'Design', description: 'Mock-ups', stage: 2 },
    { title: 'Launch' },
  ],
  milestoneTemplates: [{ title: 'Design approved', dueInDays: 14 }, { title: 'Go live' }],
  projectData: {
    description: 'From the template',
    priority: 'high',
    tags: ['web'],
    budget: { hours: 40, hourlyRate: 900 },
    minTimeEntryWords: 2,
  },
  portalSettings: { showTasks: true, allowComments: false },
};
const newTemplate = async (body: Record<string, unknown> = {}, http = t.http) => {
  const res = await http.post('/api/v1/project-templates', { ...TEMPLATE, ...body });
  expect(res.status).toBe(201);
  return res.body.data as Record<string, any>;
};
const listNames = async (q = '') =>
  (await t.http.get(`/api/v1/project-templates?limit=100${q}`)).body.data.map(
    (d: { name: string }) => d.name,
  ) as string[];

describe('project templates', () => {
  it('creates, reads, lists (default first), updates; one default per workspace', async () => {
    const a = await newTemplate({ name: 'Alpha' });
    expect(a).toMatchObject({ ...TEMPLATE, name: 'Alpha', isDefault: false, isActive: true });
    expect((await t.http.get(`/api/v1/project-templates/${a._id}`)).body.data).toEqual(a);
    const b = await newTemplate({ name: 'Beta', isDefault: true });
    expect((await listNames()).slice(0, 1)).toEqual(['Beta']);
    const patched = await t.http.patch(`/api/v1/project-templates/${a._id}`, {
      isDefault: true,
      description: null,
      taskTemplates: [{ title: 'Only' }],
    });
    expect(patched.body.data).toMatchObject({
      isDefault: true,
      description: null,
      taskTemplates: [{ title: 'Only' }],
      name: 'Alpha',
    });
    expect((await t.http.get(`/api/v1/project-templates/${b._id}`)).body.data.isDefault).toBe(false);
    const list = await t.http.get('/api/v1/project-templates');
    expect(list.body).toMatchObject({ page: 1, limit: 20 });
    expect(list.body.total).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['missing name', { name: undefined }, 'name'],
    ['blank name', { name: ' ' }, 'name'],
    ['task without title', { taskTemplates: [{ description: 'x' }] }, 'taskTemplates'],
    ['task priority unknown', { taskTemplates: [{ title: 'x', priority: 'asap' }] }, 'taskTemplates'],
    ['taskTemplates not an array', { taskTemplates: 'x' }, 'taskTemplates'],
    ['milestone dueInDays negative', { milestoneTemplates: [{ title: 'x', dueInDays: -1 }] }, 'milestoneTemplates'],
    ['projectData unknown key', { projectData: { title: 'x' } }, 'projectData'],
    ['projectData bad priority', { projectData: { priority: 'asap' } }, 'projectData'],
    ['portalSettings not an object', { portalSettings: [1] }, 'portalSettings'],
    ['isDefault not boolean', { isDefault: 'yes' }, 'isDefault'],
  ])('400 for %s', async (_name, body, field) => {
    expectError(await t.http.post('/api/v1/project-templates', { ...TEMPLATE, ...body }), 400, field);
  });

  it('a read-only key cannot create templates (projects create permission)', async () => {
    const reader = await app.key(t.workspaceId, ['read']);
    expect((await reader.post('/api/v1/project-templates', TEMPLATE)).status).toBe(403);
    expect((await reader.get('/api/v1/project-templates')).status).toBe(200);
  });

  it('DELETE is a soft delete: inactive, hidden unless includeInactive, still readable, restorable', async () => {
    const tpl = await newTemplate({ name: `Retired ${Date.now()}`, isDefault: true });
    const del = await t.http.delete(`/api/v1/project-templates/${tpl._id}`);
    expectOk(del, { isActive: false, isDefault: false });
    expect(await listNames()).not.toContain(tpl.name);
    expect(await listNames('&includeInactive=true')).toContain(tpl.name);
    expect((await t.http.get(`/api/v1/project-templates/${tpl._id}`)).body.data.isActive).toBe(false);
    expect((await t.http.get('/api/v1/project-templates?includeInactive=maybe')).status).toBe(400);
    // A deactivated template makes no projects.
    expect((await t.http.post('/api/v1/projects/from-template', { templateId: tpl._id })).status).toBe(404);
    expect((await t.http.patch(`/api/v1/project-templates/${tpl._id}`, { isActive: true })).body.data.isActive).toBe(
      true,
    );
    expect(await listNames()).toContain(tpl.name);
  });

  it("another workspace's flow or owner is 400 naming the field, and nothing is stored", async () => {
    const flowOfOther = await factories.flow!(other.http);
    const userOfOther = await factories.user!(other.http);
    const before = await listNames('&includeInactive=true');
    for (const [body, path, what] of [
      [{ flowRef: flowOfOther }, 'flowRef', 'flow'],
      [{ projectData: { owner: userOfOther } }, 'projectData.owner', 'user'],
      [{ flowRef: 'web' }, 'flowRef', 'flow'],
    ] as const) {
      const res = await t.http.post('/api/v1/project-templates', { ...TEMPLATE, name: `Foreign ${path}`, ...body });
      expect(res.status).toBe(400);
      expect(res.body.details).toContainEqual({
        path,
        error: expect.stringMatching(`^no ${what} with id .* in this workspace$`),
      });
    }
    const tpl = await newTemplate({ name: 'Patched later' });
    const patch = await t.http.patch(`/api/v1/project-templates/${tpl._id}`, { flowRef: flowOfOther });
    expect([patch.status, patch.body.details?.[0]?.path]).toEqual([400, 'flowRef']);
    expect((await t.http.get(`/api/v1/project-templates/${tpl._id}`)).body.data.flowRef).toBe(TEMPLATE.flowRef);
    const after = await listNames('&includeInactive=true');
    expect(after.filter((n) => n.startsWith('Foreign'))).toEqual([]);
    expect(after.length).toBe(before.length + 1);
  });

  it('another workspace gets 404', async () => {
    const tpl = await newTemplate();
    for (const res of [
      await other.http.get(`/api/v1/project-templates/${tpl._id}`),
      await other.http.patch(`/api/v1/project-templates/${tpl._id}`, { name: 'x' }),
      await other.http.delete(`/api/v1/project-templates/${tpl._id}`),
    ])
      expect(res.status).toBe(404);
    // The template named in a body is a reference: another workspace's one is 400 naming the field.
    const fromTemplate = await other.http.post('/api/v1/projects/from-template', { templateId: tpl._id });
    expect([fromTemplate.status, fromTemplate.body.details?.[0]?.path]).toEqual([400, 'templateId']);
    expect((await t.http.get(`/api/v1/project-templates/${tpl._id}`)).body.data).toMatchObject({
      name: 'Website build',
      isActive: true,
    });
  });
});

describe('POST /projects/from-template', () => {
  it('copies project fields, milestones, portal settings and tasks; offer lines become project lines', async () => {
    const tpl = await newTemplate();
    const company = (await makeCompany(t.http)).body.data._id as string;
    const person = await factories.person!(t.http);
    const deal = await factories.deal!(t.http);
    const lead = await factories.lead!(t.http);
    const offer = await factories.offer!(t.http);
    const before = Date.now();
    const res = await t.http.post('/api/v1/projects/from-template', {
      templateId: tpl._id,
      company,
      personRef: person,
      offerData: {
        offerId: offer,
        offerTitle: 'Shop for Acme',
        dealRef: deal,
        leadRef: lead,
        lineItems: [
          { title: 'Design', quantity: 10, unitPrice: 900 },
          { name: 'Hosting', quantity: 12, price: 100, discount: 25, unit: 'month' },
          { description: 'Setup fee', unitPrice: 500 },
        ],
      },
    });
    const p = expectCreated(res, {
      title: 'Shop for Acme',
      description: 'From the template',
      priority: 'high',
      tags: ['web'],
      budget: { hours: 40, hourlyRate: 900, amount: null },
      minTimeEntryWords: 2,
      company,
      personRef: person,
      dealRef: deal,
      leadRef: lead,
      offerRef: offer,
      templateRef: tpl._id,
      status: 'active',
      stage: 1,
      portalSettings: { showTasks: true, allowComments: false },
      lines: [
        { title: 'Design', quantity: 10, unitPrice: 900, discount: 0, total: 9000, unit: null },
        { title: 'Hosting', quantity: 12, unitPrice: 100, discount: 25, total: 900, unit: 'month' },
        { title: 'Setup fee', description: 'Setup fee', quantity: 1, unitPrice: 500, total: 500 },
      ],
    });
    expect(p.milestones.map((m: { title: string }) => m.title)).toEqual(['Design approved', 'Go live']);
    const due = Date.parse(p.milestones[0].dueDate) - before;
    expect(due).toBeGreaterThanOrEqual(14 * 86_400_000 - 1000);
    expect(due).toBeLessThan(14 * 86_400_000 + 60_000);
    expect(p.milestones[1].dueDate).toBeNull();
    expect(p.tasks.map((x: { title: string }) => x.title)).toEqual(['Kick-off', 'Design', 'Launch']);
    expect(p.tasks[0]).toMatchObject({ priority: 'high', project: p._id, order: 1 });
    expect(p.tasks[1]).toMatchObject({ description: 'Mock-ups', stage: 2 });

    // Persisted: the project reads back with its lines; its tasks are the project's tasks.
    const read = (await t.http.get(`/api/v1/projects/${p._id}`)).body.data;
    const { tasks: _tasks, ...project } = p;
    expect(read).toEqual(project);
    expect((await t.http.get(`/api/v1/projects/${p._id}/tasks`)).body.total).toBe(3);
    expect((await eventsFor(app.runtime.deps.orm, p._id)).map((e) => e.type)).toContain('project_created');
  });

  it('title defaults to the template name without offer data; body title wins', async () => {
    const tpl = await newTemplate({ name: 'Retainer', taskTemplates: [] });
    expect((await t.http.post('/api/v1/projects/from-template', { templateId: tpl._id })).body.data).toMatchObject({
      title: 'Retainer',
      lines: [],
      tasks: [],
    });
    expect(
      (
        await t.http.post('/api/v1/projects/from-template', {
          templateId: tpl._id,
          title: 'Own title',
          offerData: { offerTitle: 'Offer title' },
        })
      ).body.data.title,
    ).toBe('Own title');
  });

  it.each([
    ['missing templateId', { templateId: undefined }, 400],
    ['malformed templateId', { templateId: 'nope' }, 400],
    ['unknown templateId', { templateId: '0123456789abcdef01234567' }, 400],
    ['unknown offer', { offerData: { offerId: 'offer-77' } }, 400],
    ['unknown company', { company: '0123456789abcdef01234567' }, 400],
    ['unknown dealRef', { offerData: { dealRef: '0123456789abcdef01234567' } }, 400],
    ['unknown leadRef', { offerData: { leadRef: '0123456789abcdef01234567' } }, 400],
    ['lineItems not an array', { offerData: { lineItems: {} } }, 400],
    ['line quantity not a number', { offerData: { lineItems: [{ title: 'x', quantity: 'two' }] } }, 400],
    ['line discount over 100', { offerData: { lineItems: [{ title: 'x', discount: 150 }] } }, 400],
  ])('%s: refused, and no project is left behind', async (_name, body, status) => {
    const tpl = await newTemplate();
    const count = async () => (await t.http.get('/api/v1/projects?limit=1')).body.total as number;
    const before = await count();
    const res = await t.http.post('/api/v1/projects/from-template', { templateId: tpl._id, ...body });
    expect(res.status).toBe(status);
    expect(await count()).toBe(before);
  });

  it('an unknown task stage in the template rolls the whole project back (400)', async () => {
    const tpl = await newTemplate({ taskTemplates: [{ title: 'Fine' }, { title: 'Bad', stage: 999 }] });
    const before = (await t.http.get('/api/v1/projects?limit=1')).body.total as number;
    const res = await t.http.post('/api/v1/projects/from-template', { templateId: tpl._id });
    expectError(res, 400, /stage/);
    expect((await t.http.get('/api/v1/projects?limit=1')).body.total).toBe(before);
  });
});
