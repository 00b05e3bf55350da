import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { workspaceCtx } from '../../../test/support/automations';
import { createSequence, emailNode, insertEnrollment, line, waitNode } from '../../../test/support/sequences';
import { expectCreated, expectError, expectOk } from '../../../test/support/expect';
import { graphNode } from '../../../test/support/definitions';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s), { tenant: 'Sequences' });

const post = (body: Record<string, unknown>) => t.http.post('/api/v1/sequences', { name: 'Outreach', ...body });
/** Creating a sequence with `body` is refused: 400, with `error` for `path` among the details. */
const refuses = async (body: Record<string, unknown>, path: string, error: string) => {
  const res = await post(body);
  expect(res.status).toBe(400);
  expect(res.body.details).toEqual(expect.arrayContaining([{ path, error }]));
};

/** Every node type with valid data (spec field names). */
const everyNode = () =>
  line([
    {
      type: 'send_email',
      data: {
        subject: 'Hi {{contact.firstName}}',
        body: '<p>{{ai:intro}} from {{workspace.name}}</p>',
        aiBlocks: [{ id: 'intro', prompt: 'Write one line for {{company.name}}' }],
        recipientType: 'company',
        companyContactSelection: { mode: 'byTitle', titleFilter: 'CEO', fallback: 'skip' },
        sendCondition: { enabled: true, field: 'lead.status', operator: 'not_equals', value: 'lost' },
        unsubscribeLinkEnabled: true,
      },
    },
    { type: 'wait', data: { waitAmount: 2, waitUnit: 'hours' } },
    {
      type: 'send_sms',
      data: {
        message: 'Hi {{contact.firstName}}',
        senderType: 'alphanumeric',
        senderId: 'ACME Sales1',
        phoneField: 'mobile',
      },
    },
    { type: 'create_task', data: { title: 'Call {{lead.title}}', dueInDays: 0 } },
    { type: 'create_recall', data: { title: 'Call back', callTime: '09:30', delayDays: 2 } },
    { type: 'update_field', data: { fieldPath: 'status', value: 'contacted' } },
    {
      type: 'ai_analyzer',
      data: { prompt: 'Classify {{lead.title}}', schema: { type: 'object', properties: { tier: { type: 'string' } } } },
    },
    { type: 'set_access', data: { accessState: { owner: t.userId } } },
    { type: 'stop' },
  ]);

describe('POST /sequences', () => {
  it('creates an inactive sequence with one start node and the spec defaults', async () => {
    const res = await post({ description: 'First touch' });
    const s = expectCreated(res, {
      name: 'Outreach',
      description: 'First touch',
      isActive: false,
      edges: [],
      allowedEntityTypes: ['Lead', 'People', 'Deal', 'Company'],
      exitConditions: {
        onEmailReply: true,
        onSmsReply: true,
        onMeetingBooked: true,
        onDealStageChange: { enabled: false, stages: [] },
        onLeadStatusChange: { enabled: false, statuses: [] },
      },
      sendSettings: {
        businessHoursOnly: false,
        businessStart: '08:00',
        businessEnd: '16:30',
        timezone: 'Europe/Copenhagen',
        skipWeekends: false,
        smsQuietHoursEnabled: false,
        smsQuietHoursStart: '20:00',
        smsQuietHoursEnd: '08:00',
      },
      trackingSettings: { trackOpens: true, trackClicks: false },
      duplicateHandling: 'block_with_restart',
      triggers: [],
      defaultSenderType: null,
      defaultSenderId: null,
      defaultSmsNumber: null,
      stats: { totalEnrolled: 0, active: 0, completed: 0, exited: 0, paused: 0 },
    });
    expect(s.nodes).toHaveLength(1);
    expect(s.nodes[0]).toMatchObject({ type: 'start' });
    expect(s._id).toMatch(/^[0-9a-f]{24}$/);
    expect((await t.http.get(`/api/v1/sequences/${s._id}`)).body.data).toEqual(s);
  });

  it('accepts every node type with its fields, defaults and aliases (settings on node.data)', async () => {
    // A sequence_event trigger names a sequence of this workspace (checked when saved).
    const source = (await post({ name: 'Source' })).body.data._id as string;
    const res = await post({
      ...everyNode(),
      sendSettings: { businessHoursOnly: true, timezone: 'America/New_York' },
      duplicateHandling: 'block',
      triggers: [
        { type: 'field_change', entityType: 'Lead', field: 'status', value: 'qualified' },
        { type: 'entity_created', entityType: 'People' },
        { type: 'sequence_event', sourceSequenceId: source, event: 'sequence_completed' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.sendSettings).toMatchObject({
      businessHoursOnly: true,
      timezone: 'America/New_York',
      businessStart: '08:00',
    });
    expect(res.body.data.nodes).toHaveLength(10);
    expect(res.body.data.triggers).toHaveLength(3);
  });

  it.each([
    [
      'no start node',
      { nodes: [graphNode('a', 'stop', [0, 0], {})] },
      'nodes',
      'must contain exactly one start node (found 0)',
    ],
    [
      'two start nodes',
      {
        nodes: [graphNode('a', 'start', [0, 0], {}), graphNode('b', 'start', [1, 0], {})],
      },
      'nodes',
      'must contain exactly one start node (found 2)',
    ],
    [
      'settings under config',
      line([{ type: 'send_email', data: { config: { subject: 'x', body: 'y' } } }]),
      'nodes[1].data.config',
      'sequence step settings live on node.data, not under config',
    ],
    [
      'send_email without subject',
      line([emailNode({ subject: undefined })]),
      'nodes[1].data.subject',
      'is required unless a template is used',
    ],
    [
      'send_email template mode without templateId',
      line([{ type: 'send_email', data: { emailMode: 'template' } }]),
      'nodes[1].data.templateId',
      'is required with emailMode template',
    ],
    [
      'send_email unknown recipientField',
      line([emailNode({ recipientField: 'pager' })]),
      'nodes[1].data.recipientField',
      'must be one of primary, work, cvr, privat, faktura, support, ai, all, custom',
    ],
    [
      'send_email custom without customRecipient',
      line([emailNode({ recipientField: 'custom' })]),
      'nodes[1].data.customRecipient',
      'is required with recipientField custom',
    ],
    [
      'send_email unknown ai block',
      line([emailNode({ body: '{{ai:nope}}' })]),
      'nodes[1].data.body',
      '{{ai:nope}} names no entry of aiBlocks',
    ],
    [
      'byTitle without titleFilter',
      line([emailNode({ recipientType: 'company', companyContactSelection: { mode: 'byTitle' } })]),
      'nodes[1].data.companyContactSelection.titleFilter',
      'is required with mode byTitle',
    ],
    [
      'sms fallback company_email',
      line([{ type: 'send_sms', data: { message: 'x', companyContactSelection: { fallback: 'company_email' } } }]),
      'nodes[1].data.companyContactSelection.fallback',
      'must be one of company_phone, skip',
    ],
    [
      'sms without message',
      line([{ type: 'send_sms', data: {} }]),
      'nodes[1].data.message',
      'is required unless an SMS template is used',
    ],
    [
      'sms alphanumeric sender of 12 characters',
      line([{ type: 'send_sms', data: { message: 'x', senderType: 'alphanumeric', senderId: 'ABCDEFGHIJKL' } }]),
      'nodes[1].data.senderId',
      'must be at most 11 characters',
    ],
    [
      'sms alphanumeric without senderId',
      line([{ type: 'send_sms', data: { message: 'x', senderType: 'alphanumeric' } }]),
      'nodes[1].data.senderId',
      'is required with senderType alphanumeric (at most 11 characters)',
    ],
    [
      'wait with unknown unit',
      line([waitNode({ delayAmount: 1, delayUnit: 'years' })]),
      'nodes[1].data.delayUnit',
      'must be one of minutes, hours, days, weeks',
    ],
    [
      'wait of zero',
      line([waitNode({ waitDays: 0 })]),
      'nodes[1].data.waitDays',
      'waitDays and waitHours add up to 0; a wait must be longer',
    ],
    ['create_task without title', line([{ type: 'create_task', data: {} }]), 'nodes[1].data.taskTitle', 'is required'],
    [
      'create_task unknown activityType',
      line([{ type: 'create_task', data: { taskTitle: 'x', activityType: 'party' } }]),
      'nodes[1].data.activityType',
      'must be one of task, call, meeting, follow_up, email, deadline, reminder',
    ],
    ['create_recall without title', line([{ type: 'create_recall', data: {} }]), 'nodes[1].data.title', 'is required'],
    [
      'create_recall bad callTime',
      line([{ type: 'create_recall', data: { title: 'x', callTime: '25:00' } }]),
      'nodes[1].data.callTime',
      'must be HH:mm',
    ],
    [
      'update_field without value',
      line([{ type: 'update_field', data: { fieldPath: 'status' } }]),
      'nodes[1].data.value',
      'is required',
    ],
    [
      'condition with unknown operator',
      line([{ type: 'condition', data: { field: 'lead.score', operator: 'bigger' } }]),
      'nodes[1].data.operator',
      'must be one of equals, not_equals, contains, not_contains, starts_with, ends_with, matches_regex, greater_than, less_than, greater_than_or_equal, less_than_or_equal, between, is_empty, is_not_empty, exists, not_exists, is_true, is_false, array_contains, array_length_equals, array_length_greater, date_before, date_after, date_equals, date_within_days, date_in_exactly_days',
    ],
    [
      'condition on a bare name',
      line([{ type: 'condition', data: { field: 'score' } }]),
      'nodes[1].data.field',
      'needs a namespace, e.g. lead.score (bare names do not resolve)',
    ],
    [
      'ai_condition threshold above 1',
      line([{ type: 'ai_condition', data: { prompt: 'x', confidenceThreshold: 1.1 } }]),
      'nodes[1].data.confidenceThreshold',
      'must be at most 1',
    ],
    [
      'ai_analyzer json_schema without schema',
      line([{ type: 'ai_analyzer', data: { prompt: 'x' } }]),
      'nodes[1].data.schema',
      'is required with outputMode json_schema: a JSON Schema object with at least one property',
    ],
    [
      'set_access without accessState',
      line([{ type: 'set_access', data: {} }]),
      'nodes[1].data.accessState',
      'is required',
    ],
    [
      'unknown node type',
      line([{ type: 'delay', data: {} }]),
      'nodes.1.type',
      'must be one of start, send_email, send_sms, wait, create_task, create_recall, update_field, condition, ai_condition, ai_analyzer, set_access, stop',
    ],
  ])('%s → 400 naming the path', (_case, body, path, error) => refuses(body, path, error));

  it.each([
    [
      'edge to a missing node',
      { edges: [{ id: 'e1', source: 'start', target: 'ghost', sourceHandle: null }] },
      'edges[0].target',
      'no node "ghost"',
    ],
    [
      'condition edge without a handle',
      {
        nodes: [
          ...line([]).nodes,
          graphNode('c', 'condition', [1, 1], { field: 'lead.score', operator: 'greater_than', value: 10 }),
        ],
        edges: [
          { id: 'e1', source: 'start', target: 'c', sourceHandle: null },
          { id: 'e2', source: 'c', target: 'start', sourceHandle: null },
        ],
      },
      'edges[1].sourceHandle',
      'must be "true" or "false" (edge out of condition node "c")',
    ],
    [
      'two edges out of a send',
      {
        ...line([emailNode(), emailNode({}, 'x')]),
        edges: [
          { id: 'e1', source: 'start', target: 's1', sourceHandle: null },
          { id: 'e2', source: 's1', target: 'x', sourceHandle: null },
          { id: 'e3', source: 's1', target: 'x', sourceHandle: null },
        ],
      },
      'edges[2]',
      'node "s1" already has an outgoing edge (sequences are linear; branch with a condition node)',
    ],
  ])('%s → 400', (_case, body, path, error) => refuses(body, path, error));

  it.each([
    [
      { sendSettings: { timezone: 'Mars/Olympus' } },
      'sendSettings.timezone',
      'must be an IANA time zone such as Europe/Copenhagen',
    ],
    [{ sendSettings: { businessStart: '8am' } }, 'sendSettings.businessStart', 'must be HH:mm (00:00-23:59)'],
    [
      { duplicateHandling: 'sometimes' },
      'duplicateHandling',
      'must be one of block, block_with_restart, allow_multiple',
    ],
    [{ allowedEntityTypes: ['Lead', 'Ticket'] }, 'allowedEntityTypes.1', 'must be one of Lead, People, Deal, Company'],
    [{ allowedEntityTypes: [] }, 'allowedEntityTypes', 'must not be empty'],
  ])('settings %j → 400', (body, path, error) => refuses(body, path, error));

  it('limits: 200 nodes and 20 triggers are accepted, one more is 400; name ≤ 200 characters', async () => {
    const many = (n: number) => ({
      nodes: [
        line([]).nodes[0],
        ...Array.from({ length: n - 1 }, (_, i) => ({ id: `x${i}`, type: 'stop', position: { x: i, y: 0 }, data: {} })),
      ],
    });
    expect((await post(many(200))).status).toBe(201);
    expect((await post(many(201))).status).toBe(400);
    const trig = (n: number) => ({
      triggers: Array.from({ length: n }, () => ({ type: 'entity_created', entityType: 'Lead' })),
    });
    expect((await post(trig(20))).status).toBe(201);
    expect((await post(trig(21))).status).toBe(400);
    expect((await post({ name: 'x'.repeat(200) })).status).toBe(201);
    expect((await post({ name: 'x'.repeat(201) })).status).toBe(400);
    expect((await t.http.post('/api/v1/sequences', {})).status).toBe(400);
  });
});

describe('PUT, toggle, duplicate, list, delete', () => {
  it('PUT merges settings key by key and bumps version only for definition changes', async () => {
    const id = (await post({ exitConditions: { onDealStageChange: { enabled: true, stages: [2, 3] } } })).body.data._id;
    const res = await t.http.put(`/api/v1/sequences/${id}`, {
      sendSettings: { skipWeekends: true },
      exitConditions: { onDealStageChange: { enabled: false } },
      defaultSmsNumber: '+4511223344',
    });
    expectOk(res, {
      version: 2,
      sendSettings: { skipWeekends: true, businessStart: '08:00' },
      exitConditions: { onDealStageChange: { enabled: false, stages: [2, 3] }, onEmailReply: true },
      defaultSmsNumber: '+4511223344',
    });
    const renamed = await t.http.put(`/api/v1/sequences/${id}`, { name: 'Renamed' });
    expect(renamed.body.data).toMatchObject({ name: 'Renamed', version: 2 });
    expect((await t.http.put(`/api/v1/sequences/${id}`, { sendSettings: { timezone: 'Nowhere/City' } })).status).toBe(
      400,
    );
    expect((await t.http.put(`/api/v1/sequences/${id}`, { nodes: [] })).body.details).toEqual([
      { path: 'nodes', error: 'must contain exactly one start node (found 0)' },
    ]);
  });

  it('toggle needs a start node and an action node (400 with details), then flips isActive', async () => {
    const bare = (await post({})).body.data._id;
    const refused = await t.http.post(`/api/v1/sequences/${bare}/toggle`);
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([
      {
        path: 'nodes',
        error:
          'needs at least one action node (send_email, send_sms, create_task, create_recall, update_field, ai_analyzer, set_access)',
      },
    ]);
    const waitsOnly = (await post(line([waitNode()]))).body.data._id;
    expect((await t.http.post(`/api/v1/sequences/${waitsOnly}/toggle`)).status).toBe(400);
    const id = (await post(line([emailNode()]))).body.data._id;
    expect((await t.http.post(`/api/v1/sequences/${id}/toggle`)).body).toEqual({ data: { _id: id, isActive: true } });
    // An active sequence cannot lose its last action node.
    expect((await t.http.put(`/api/v1/sequences/${id}`, line([waitNode()]))).status).toBe(400);
    expect((await t.http.post(`/api/v1/sequences/${id}/toggle`)).body).toEqual({ data: { _id: id, isActive: false } });
  });

  it('duplicate gives an inactive copy with the same graph and settings', async () => {
    const id = await createSequence(t.http, {
      ...line([emailNode()]),
      name: 'Original',
      duplicateHandling: 'allow_multiple',
    });
    const res = await t.http.post(`/api/v1/sequences/${id}/duplicate`);
    expectCreated(res, {
      name: 'Original (copy)',
      isActive: false,
      duplicateHandling: 'allow_multiple',
      version: 1,
    });
    expect(res.body.data._id).not.toBe(id);
    expect(res.body.data.nodes).toEqual((await t.http.get(`/api/v1/sequences/${id}`)).body.data.nodes);
  });

  it('lists with the page envelope and the isActive filter (strict query)', async () => {
    const other = await app.tenant('Sequences list');
    const active = await createSequence(other.http, line([emailNode()]));
    const inactive = await createSequence(other.http, line([emailNode()]), { active: false });
    const all = await other.http.get('/api/v1/sequences');
    expect(all.body).toMatchObject({ page: 1, limit: 20, total: 2 });
    expect(all.body.data.map((s: any) => s._id)).toEqual([inactive, active]);
    expect((await other.http.get('/api/v1/sequences?isActive=true')).body.data.map((s: any) => s._id)).toEqual([
      active,
    ]);
    expect((await other.http.get('/api/v1/sequences?isActive=false')).body.data.map((s: any) => s._id)).toEqual([
      inactive,
    ]);
    expect((await other.http.get('/api/v1/sequences?isActive=yes')).status).toBe(400);
    expect((await other.http.get('/api/v1/sequences?active=true')).status).toBe(400);
    expect((await other.http.get('/api/v1/sequences?limit=100')).status).toBe(200);
    expect((await other.http.get('/api/v1/sequences?limit=101')).status).toBe(400);
  });

  it('DELETE answers { deleted: true }; 409 while an enrollment is active or paused', async () => {
    const id = await createSequence(t.http, line([emailNode()]));
    const ctx = await workspaceCtx(app, t.http);
    const running = await insertEnrollment(ctx, id, { status: 'paused' });
    const refused = await t.http.delete(`/api/v1/sequences/${id}`);
    expectError(refused, 409, '1 active or paused enrollment');
    await ctx.em.nativeUpdate('SequenceEnrollment', { _id: running._id }, { status: 'exited' });
    expect((await t.http.delete(`/api/v1/sequences/${id}`)).body).toEqual({ data: { deleted: true } });
    expect((await t.http.get(`/api/v1/sequences/${id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/sequences/enrollments/${running._id}`)).status).toBe(404);
  });
});

describe('enrolling: checks at the boundary (no workflow reached)', () => {
  it('an inactive sequence refuses enrollment (409) and is not eligible', async () => {
    const id = await createSequence(t.http, line([emailNode()]), { active: false });
    const lead = (await t.http.post('/api/v1/leads', { title: 'L' })).body.data._id;
    const res = await t.http.post(`/api/v1/sequences/${id}/enroll`, { entityType: 'Lead', entityId: lead });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('invalid_state');
    expect(
      (await t.http.get(`/api/v1/sequences/${id}/enroll-eligibility?entityType=Lead&entityId=${lead}`)).body,
    ).toEqual({ data: { eligible: false, reason: 'sequence_inactive' } });
  });

  it.each([
    [{ entityType: 'Lead' }, 'entityId'],
    [{ entityType: 'Lead', entityId: '0123456789abcdef01234567', entityIds: ['0123456789abcdef01234567'] }, 'entityId'],
    [{ entityType: 'Ticket', entityId: '0123456789abcdef01234567' }, 'entityType'],
    [{ entityType: 'Lead', entityIds: [] }, 'entityIds'],
    [{ entityType: 'Lead', entityId: 'nope' }, 'entityId'],
    [{ entityType: 'Lead', entityId: '0123456789abcdef01234567', forceRestart: 'yes' }, 'forceRestart'],
  ])('bad body %j → 400 (%s)', async (body, path) => {
    const id = await createSequence(t.http, line([emailNode()]));
    const res = await t.http.post(`/api/v1/sequences/${id}/enroll`, body);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: any) => d.path)).toContain(path);
  });

  it('bulk: 500 ids per call are accepted (each reported), 501 are refused; entity type must be allowed', async () => {
    const id = await createSequence(t.http, { ...line([emailNode()]), allowedEntityTypes: ['People'] });
    const ids = (n: number) => Array.from({ length: n }, (_, i) => (0x100000000000 + i).toString(16).padStart(24, 'a'));
    const notAllowed = await t.http.post(`/api/v1/sequences/${id}/enroll`, { entityType: 'Lead', entityIds: ids(2) });
    expectError(notAllowed, 400, 'this sequence accepts People');
    const max = await t.http.post(`/api/v1/sequences/${id}/enroll`, { entityType: 'People', entityIds: ids(500) });
    expectCreated(max, { enrolled: 0, failed: 500 });
    expect(max.body.data.results[0]).toMatchObject({
      success: false,
      error: 'no People with this id in the workspace',
    });
    expect(
      (await t.http.post(`/api/v1/sequences/${id}/enroll`, { entityType: 'People', entityIds: ids(501) })).status,
    ).toBe(400);
    expect(
      (await t.http.get(`/api/v1/sequences/${id}/enroll-eligibility?entityType=Lead&entityId=${ids(1)[0]}`)).body.data,
    ).toEqual({ eligible: false, reason: 'entity_type_not_allowed' });
    expect(
      (await t.http.get(`/api/v1/sequences/${id}/enroll-eligibility?entityType=People&entityId=${ids(1)[0]}`)).body
        .data,
    ).toEqual({ eligible: false, reason: 'entity_not_found' });
    expect((await t.http.get(`/api/v1/sequences/${id}/enroll-eligibility?entityType=People`)).status).toBe(400);
  });

  it('a lead of another workspace cannot be enrolled (404) and is not eligible', async () => {
    const id = await createSequence(t.http, line([emailNode()]));
    const other = await app.tenant('Sequences other');
    const foreign = (await other.http.post('/api/v1/leads', { title: 'Foreign', email: 'f@example.test' })).body.data
      ._id;
    const res = await t.http.post(`/api/v1/sequences/${id}/enroll`, { entityType: 'Lead', entityId: foreign });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('no Lead with this id in the workspace');
    expect(
      (await t.http.get(`/api/v1/sequences/${id}/enroll-eligibility?entityType=Lead&entityId=${foreign}`)).body.data,
    ).toEqual({ eligible: false, reason: 'entity_not_found' });
    expect((await t.http.get(`/api/v1/sequences/${id}/enrollments`)).body.total).toBe(0);
  });

  it('stats and enrollments of an empty sequence; status filter is validated', async () => {
    const id = await createSequence(t.http, line([emailNode({}, 'mail'), waitNode({}, 'pause')]));
    const stats = await t.http.get(`/api/v1/sequences/${id}/stats`);
    expect(stats.body).toEqual({
      data: {
        stats: {
          totalEnrolled: 0,
          active: 0,
          paused: 0,
          completed: 0,
          exited: 0,
          switched: 0,
          exitReasons: {},
          steps: [
            {
              nodeId: 'mail',
              nodeType: 'send_email',
              label: null,
              sent: 0,
              opened: 0,
              clicked: 0,
              replied: 0,
              completed: 0,
              skipped: 0,
              failed: 0,
              waiting: 0,
            },
            {
              nodeId: 'pause',
              nodeType: 'wait',
              label: null,
              sent: 0,
              opened: 0,
              clicked: 0,
              replied: 0,
              completed: 0,
              skipped: 0,
              failed: 0,
              waiting: 0,
            },
          ],
        },
        enrollmentCounts: [],
      },
    });
    expect((await t.http.get(`/api/v1/sequences/${id}/enrollments?status=active`)).body).toEqual({
      data: [],
      page: 1,
      limit: 20,
      total: 0,
    });
    expect((await t.http.get(`/api/v1/sequences/${id}/enrollments?status=running`)).status).toBe(400);
  });
});
