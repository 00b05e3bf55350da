/**
 * Issue 29: every stored reference is checked when it is saved. The route registry is walked: for
 * each field a body or query schema declares with ref('<kind>'), workspace B sends an id of one of
 * workspace A's records there and gets 400 naming the field, with nothing written (no outbox event
 * in B, whose every write appends one). Then the writes the issue names, one by one, and the
 * automation and sequence graphs checked at save and at activation.
 */
jest.setTimeout(240_000);
import { Automation } from '../../modules/automations/automation.entity';
import { Sequence } from '../../modules/sequences/sequence.entity';
import { forkForWorkspace } from '../../platform/orm/tenant';
import type { RefKind } from '../../platform/references/ref-kinds';
import type { Tenant, TestApp } from '../support/app';
import { withTwoTenants } from '../support/two-tenants';
import { automationBody } from '../support/automations';
import { connectAccount } from '../support/email';
import { factories } from '../support/factories';
import { buildProbe, concretePath, pathText } from '../support/probe-body';
import { declaredRefs } from '../support/reference-fields';
import { emailNode, line } from '../support/sequences';

let app: TestApp;
let a: Tenant;
let b: Tenant;
withTwoTenants((s) => ({ app, t: a, other: b } = s));

/** Kinds the shared factories do not build (or build differently). */
const EXTRA: Partial<Record<RefKind, (t: Tenant) => Promise<string>>> = {
  stage: async (t) => {
    const flowId = await factories.flow!(t.http);
    const stage = (await t.http.get(`/api/v1/flows/${flowId}`)).body.data.stages[0];
    return (stage.id ?? stage._id) as string;
  },
  'email-account': async (t) => (await connectAccount(app, t.workspaceId, 2525)).account._id as string,
  'support-flow': async (t) => (await t.http.get('/api/v1/support-flow')).body.data._id as string,
};
const cache = new Map<string, string>();
async function recordOf(kind: RefKind, t: Tenant): Promise<string> {
  const key = `${t.workspaceId}:${kind}`;
  if (!cache.has(key)) {
    const make = EXTRA[kind] ?? ((x: Tenant) => factories[kind]!(x.http, { app }));
    cache.set(key, await make(t));
  }
  return cache.get(key)!;
}

const outboxCount = async (workspaceId: string): Promise<number> => {
  const [row] = await app.runtime.deps.orm.em
    .fork()
    .getConnection()
    .execute<{ n: number }[]>('select count(*)::int as n from outbox_event where workspace_id = ?', [workspaceId]);
  return row!.n;
};

/**
 * Bodies a generic fill cannot guess (discriminators, cross-field rules); the probe pins the
 * reference on top. Keyed by `METHOD path where:field` or `METHOD path`.
 */
const BASES: Record<string, Record<string, unknown>> = {
  'POST /api/v1/lead-routing/rules body:assignment.userId': { assignment: { type: 'user' } },
  'PUT /api/v1/lead-routing/rules/:id body:assignment.userId': { assignment: { type: 'user' } },
  'POST /api/v1/lead-routing/rules body:assignment.userIds[]': { assignment: { type: 'round_robin' } },
  'PUT /api/v1/lead-routing/rules/:id body:assignment.userIds[]': { assignment: { type: 'round_robin' } },
  'POST /api/v1/sequences': { triggers: [{ type: 'sequence_event', event: 'sequence_completed' }] },
  'PUT /api/v1/sequences/:id': { triggers: [{ type: 'sequence_event', event: 'sequence_completed' }] },
  'POST /api/v1/sms/bulk': { message: 'Hello', recipients: [{ to: '+4512345678' }] },
};

it("every declared reference refuses another workspace's id with 400 naming the field, and writes nothing", async () => {
  const refs = declaredRefs(app.runtime.routes);
  expect(refs.length).toBeGreaterThan(40);
  const failures: string[] = [];
  for (const r of refs) {
    const label = `${r.route.method} ${r.route.path} ${r.where}:${r.path} (${r.kind})`;
    const foreign = await recordOf(r.kind, a);
    const pinned = concretePath(r.path);
    const schema = r.where === 'body' ? r.route.body! : r.route.query!;
    const route = `${r.route.method} ${r.route.path}`;
    const base = BASES[`${route} ${r.where}:${r.path}`] ?? (r.where === 'body' ? BASES[route] : undefined) ?? {};
    const built = buildProbe(schema, pinned, foreign, base, r.where === 'query');
    if ('error' in built) {
      failures.push(`${label}: cannot build a valid request (${built.error}); add a base in BASES`);
      continue;
    }
    const params: Record<string, string> = {};
    for (const [param, kind] of Object.entries(r.route.resources ?? {}))
      params[param] = await (EXTRA[kind as RefKind]?.(b) ?? factories[kind]!(b.http, { app }));
    let path = r.route.path.replace(/:(\w+)/g, (_, p: string) => params[p]!);
    if (r.where === 'query') path += `?${new URLSearchParams(built.value as Record<string, string>).toString()}`;
    const before = await outboxCount(b.workspaceId);
    const res = await b.http.request(r.route.method, path, r.where === 'body' ? built.value : undefined);
    const after = await outboxCount(b.workspaceId);
    const where = pathText(pinned);
    const named = Array.isArray(res.body?.details)
      ? res.body.details.find((d: { path?: string }) => d.path === where)
      : undefined;
    if (res.status !== 400 || !named || !/in this workspace$/.test(named.error))
      failures.push(`${label} answered ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    if (after !== before) failures.push(`${label} wrote ${after - before} outbox event(s)`);
  }
  expect(failures).toEqual([]);
});

describe('the writes of issue 29', () => {
  it('offer settings: foreign default template, offer type and sender mailbox are 400; nothing stored', async () => {
    const before = (await b.http.get('/api/v1/workspace/offer-settings')).body.data;
    for (const [body, path] of [
      [{ defaults: { defaultTemplateId: await recordOf('offer-template', a) } }, 'defaults.defaultTemplateId'],
      [{ defaults: { defaultOfferTypeId: await recordOf('offer-type', a) } }, 'defaults.defaultOfferTypeId'],
      [{ emailSettings: { senderAccountId: await recordOf('email-account', a) } }, 'emailSettings.senderAccountId'],
    ] as const) {
      const res = await b.http.patch('/api/v1/workspace/offer-settings', body);
      expect([res.status, res.body.details?.[0]?.path]).toEqual([400, path]);
      expect(res.body.error).toMatch(new RegExp(`^${path.replace('.', '\\.')}: no .* in this workspace$`));
    }
    expect((await b.http.get('/api/v1/workspace/offer-settings')).body.data).toEqual(before);
    // The workspace's own records are accepted.
    const own = await b.http.patch('/api/v1/workspace/offer-settings', {
      defaults: {
        defaultTemplateId: await recordOf('offer-template', b),
        defaultOfferTypeId: await recordOf('offer-type', b),
      },
      emailSettings: { senderAccountId: await recordOf('email-account', b) },
    });
    expect(own.status).toBe(200);
    expect(own.body.data.defaults.defaultTemplateId).toBe(await recordOf('offer-template', b));
  });

  it('calculate with save: a foreign offerId is 400 and no submission is stored', async () => {
    const template = await recordOf('calculator-template', b);
    const list = async () => (await b.http.get('/api/v1/calculator-submissions?limit=100')).body.total as number;
    const before = await list();
    const res = await b.http.post(`/api/v1/calculator-templates/${template}/calculate`, {
      inputs: {},
      save: true,
      offerId: await recordOf('offer', a),
    });
    expect([res.status, res.body.details?.[0]?.path]).toEqual([400, 'offerId']);
    expect(await list()).toBe(before);
  });

  it("report history: another workspace's user is 400 (as the other user filters)", async () => {
    const q = 'stat=deals&startDate=2026-01-01&endDate=2026-12-31';
    const res = await b.http.get(`/api/v1/reports/history?${q}&userId=${await recordOf('user', a)}`);
    expect([res.status, res.body.details?.[0]?.path]).toEqual([400, 'userId']);
    const own = await b.http.get(`/api/v1/reports/history?${q}&userId=${b.userId}`);
    expect([own.status, own.body.error]).toEqual([200, undefined]);
  });
});

const nodeIssue = (res: { status: number; body: any }) => [res.status, res.body.details?.[0]];

describe('automation graphs', () => {
  const withAction = (actionType: string, config: Record<string, unknown>) => {
    const body = automationBody({ name: `Refs ${actionType}` });
    body.nodes[1] = { ...body.nodes[1]!, data: { actionType, config } };
    return body;
  };
  const cases = async (): Promise<[string, Record<string, unknown>, string, string][]> => [
    ['add_to_sequence', { sequenceId: await recordOf('sequence', a) }, 'sequenceId', 'sequence'],
    ['add_to_list', { listId: await recordOf('list', a) }, 'listId', 'list'],
    ['send_email', { templateId: await recordOf('email-template', a) }, 'templateId', 'e-mail template'],
    [
      'send_email',
      { subject: 'Hi', body: 'Hi', senderAccountId: await recordOf('email-account', a) },
      'senderAccountId',
      'mailbox',
    ],
    // assignTo is a keyword (owner, creator, placeholder) or a user id, checked like any reference.
    ['create_task', { title: 'Call', assignTo: await recordOf('user', a) }, 'assignTo', 'user'],
  ];

  it("naming another workspace's sequence, list, template or mailbox is refused on create and update, with the node named", async () => {
    const own = await b.http.post('/api/v1/automations', automationBody({ name: 'Refs own' }));
    expect(own.status).toBe(201);
    for (const [actionType, config, field, label] of await cases()) {
      const expected = {
        path: `nodes[1].data.config.${field}`,
        nodeId: 'action_1',
        field,
        error: `no ${label} with id ${config[field]} in this workspace`,
      };
      expect(nodeIssue(await b.http.post('/api/v1/automations', withAction(actionType, config)))).toEqual([
        400,
        expected,
      ]);
      const put = await b.http.put(`/api/v1/automations/${own.body.data._id}`, {
        nodes: withAction(actionType, config).nodes,
      });
      expect(nodeIssue(put)).toEqual([400, expected]);
    }
    const names = (await b.http.get('/api/v1/automations?limit=100')).body.data.map((x: { name: string }) => x.name);
    expect(names.filter((n: string) => n.startsWith('Refs '))).toEqual(['Refs own']);
    expect((await b.http.get(`/api/v1/automations/${own.body.data._id}`)).body.data.nodes).toEqual(own.body.data.nodes);
  });

  it('a graph whose stored ids are not (or no longer) in the workspace is refused on activation', async () => {
    const list = await factories.list!(b.http);
    const created = await b.http.post('/api/v1/automations', withAction('add_to_list', { listId: list }));
    expect(created.status).toBe(201);
    const id = created.body.data._id as string;
    // Stored before the rule (or by a bug): the node names another workspace's sequence.
    const foreign = await recordOf('sequence', a);
    const em = forkForWorkspace(app.runtime.deps.orm.em, b.workspaceId);
    const row = await em.findOneOrFail(Automation, { _id: id });
    row.nodes = withAction('add_to_sequence', { sequenceId: foreign }).nodes as never;
    await em.flush();
    const res = await b.http.post(`/api/v1/automations/${id}/toggle`);
    expect(nodeIssue(res)).toEqual([
      400,
      {
        path: 'nodes[1].data.config.sequenceId',
        nodeId: 'action_1',
        field: 'sequenceId',
        error: `no sequence with id ${foreign} in this workspace`,
      },
    ]);
    expect((await b.http.get(`/api/v1/automations/${id}`)).body.data.isActive).toBe(false);
    // A list deleted after the save: activation names it too.
    row.nodes = withAction('add_to_list', { listId: list }).nodes as never;
    await em.flush();
    expect((await b.http.delete(`/api/v1/lists/${list}`)).status).toBe(200);
    expect(nodeIssue(await b.http.post(`/api/v1/automations/${id}/toggle`))).toEqual([
      400,
      expect.objectContaining({ nodeId: 'action_1', field: 'listId' }),
    ]);
  });

  it('a create_task assigned by keyword or to a user of the workspace is accepted', async () => {
    const own = await recordOf('user', b);
    for (const assignTo of ['owner', 'creator', own])
      expect(
        (await b.http.post('/api/v1/automations', withAction('create_task', { title: 'Call', assignTo }))).status,
      ).toBe(201);
  });

  it('placeholders are left to run time', async () => {
    const res = await b.http.post('/api/v1/automations', withAction('add_to_list', { listId: '{{trigger.listId}}' }));
    expect(res.status).toBe(201);
  });
});

describe('sequence graphs', () => {
  const cases = async (): Promise<[Record<string, unknown>, string, string, string][]> => [
    [
      { emailMode: 'template', templateId: await recordOf('email-template', a) },
      'templateId',
      'e-mail template',
      'send_email',
    ],
    [{ senderAccountId: await recordOf('email-account', a) }, 'senderAccountId', 'mailbox', 'send_email'],
    [{ smsMode: 'template', templateId: await recordOf('sms-template', a) }, 'templateId', 'SMS template', 'send_sms'],
  ];
  const graph = (type: string, data: Record<string, unknown>) =>
    line([type === 'send_email' ? emailNode(data, 'step') : { id: 'step', type, data }]);

  it("naming another workspace's template or mailbox is refused on create and update, with the node named", async () => {
    const own = await b.http.post('/api/v1/sequences', { name: 'Refs own', ...line([emailNode({}, 'step')]) });
    expect(own.status).toBe(201);
    for (const [data, field, label, type] of await cases()) {
      const expected = {
        path: `nodes[1].data.${field}`,
        nodeId: 'step',
        field,
        error: `no ${label} with id ${data[field]} in this workspace`,
      };
      const create = await b.http.post('/api/v1/sequences', { name: `Refs ${field}`, ...graph(type, data) });
      expect(nodeIssue(create)).toEqual([400, expected]);
      expect(nodeIssue(await b.http.put(`/api/v1/sequences/${own.body.data._id}`, graph(type, data)))).toEqual([
        400,
        expected,
      ]);
    }
    const names = (await b.http.get('/api/v1/sequences?limit=100')).body.data.map((x: { name: string }) => x.name);
    expect(names.filter((n: string) => n.startsWith('Refs '))).toEqual(['Refs own']);
  });

  it("an auto-enrollment trigger naming another workspace's sequence is 400", async () => {
    const foreign = await recordOf('sequence', a);
    const res = await b.http.post('/api/v1/sequences', {
      name: 'Refs trigger',
      ...line([emailNode()]),
      triggers: [{ type: 'sequence_event', sourceSequenceId: foreign, event: 'sequence_completed' }],
    });
    expect([res.status, res.body.details?.[0]?.path]).toEqual([400, 'triggers[0].sourceSequenceId']);
  });

  it('stored ids that are not in the workspace are refused on activation, with the node named', async () => {
    const created = await b.http.post('/api/v1/sequences', {
      name: 'Refs activation',
      ...line([emailNode({}, 'step')]),
    });
    expect(created.status).toBe(201);
    const id = created.body.data._id as string;
    const foreign = await recordOf('email-template', a);
    const em = forkForWorkspace(app.runtime.deps.orm.em, b.workspaceId);
    const row = await em.findOneOrFail(Sequence, { _id: id });
    row.nodes = graph('send_email', { emailMode: 'template', templateId: foreign }).nodes as never;
    await em.flush();
    const res = await b.http.post(`/api/v1/sequences/${id}/toggle`);
    expect(nodeIssue(res)).toEqual([
      400,
      {
        path: 'nodes[1].data.templateId',
        nodeId: 'step',
        field: 'templateId',
        error: `no e-mail template with id ${foreign} in this workspace`,
      },
    ]);
    expect((await b.http.get(`/api/v1/sequences/${id}`)).body.data.isActive).toBe(false);
  });
});
