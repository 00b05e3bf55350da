import { CustomFieldDefinition } from '../../custom-fields/custom-field-definition.entity';
import { LeadScoringRule } from '../lead-scoring-rule.entity';
import { MAX_SCORING_RULES } from '../lead-scoring.service';
import { rescoreLeads } from '../rescore';
import { createLogger } from '../../../platform/logger';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { createRecord } from '../../../platform/shared/records';
import { createOutboxDispatcher, type OutboxDispatcher } from '../../../platform/outbox/dispatcher';
import { buildSubscribers } from '../../../app/subscribers';
import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeLead, makePerson, unique } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectRejectedCreate } from '../../../test/support/expect';
import { workspaceCtx } from '../../../test/support/automations';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const RULES = '/api/v1/lead-scoring/rules';
const rule = (http: Tenant['http'], body: Record<string, unknown>) =>
  http.post(RULES, { name: `Rule ${unique()}`, ...body });

async function waitFor<T>(
  probe: () => Promise<T>,
  ok: (v: T) => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('scoring rules CRUD', () => {
  it('creates with defaults, lists sorted by sortOrder then creation, reads, updates partially and deletes', async () => {
    const mine = await app.tenant();
    const hasEmail = {
      name: 'Has e-mail',
      description: 'reachable',
      field: 'hasEmail',
      condition: 'equals',
      value: true,
      points: 10,
      sortOrder: 5,
    };
    const a = await rule(mine.http, hasEmail);
    expectCreated(a, { ...hasEmail, isActive: true });
    const b = (
      await rule(mine.http, { name: 'No phone', field: 'hasPhone', condition: 'equals', value: false, points: -5 })
    ).body.data;
    const c = (await rule(mine.http, { name: 'Any source', field: 'source', condition: 'exists', points: 3 })).body
      .data;
    expect(b).toMatchObject({ sortOrder: 0, points: -5 });
    expect(c.value).toBeNull();
    const list = await mine.http.get(RULES);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, limit: 20, total: 3 });
    expect(list.body.data.map((r: any) => r.name)).toEqual(['No phone', 'Any source', 'Has e-mail']);

    const put = await mine.http.put(`${RULES}/${a.body.data._id}`, { points: 20, sortOrder: -1 });
    expect(put.body.data).toMatchObject({
      name: 'Has e-mail',
      field: 'hasEmail',
      value: true,
      points: 20,
      sortOrder: -1,
    });
    expect((await mine.http.get(RULES)).body.data[0].name).toBe('Has e-mail');
    expect((await mine.http.get(`${RULES}/${a.body.data._id}`)).body.data.points).toBe(20);

    // Switching to exists drops the old value; switching to in needs an array.
    const toExists = await mine.http.put(`${RULES}/${a.body.data._id}`, { field: 'source', condition: 'exists' });
    expect(toExists.body.data).toMatchObject({ field: 'source', condition: 'exists', value: null });
    const toIn = await mine.http.put(`${RULES}/${a.body.data._id}`, { condition: 'in' });
    expectError(toIn, 400, /value: must be a non-empty array for in/);
    expect(
      (await mine.http.put(`${RULES}/${a.body.data._id}`, { condition: 'in', value: ['web', 'ads'] })).body.data.value,
    ).toEqual(['web', 'ads']);

    expect((await mine.http.delete(`${RULES}/${b._id}`)).body).toEqual({ ok: true });
    expect((await mine.http.get(`${RULES}/${b._id}`)).status).toBe(404);
    expect((await mine.http.delete(`${RULES}/${b._id}`)).status).toBe(404);
    expect((await mine.http.put(`${RULES}/not-an-id`, { points: 1 })).status).toBe(404);

    const events = (await eventsFor(app.runtime.deps.orm, mine.workspaceId)).filter(
      (e) => e.type === 'lead_scoring_rules_changed',
    );
    expect(events.map((e) => e.payload.action)).toEqual([
      'created',
      'created',
      'created',
      'updated',
      'updated',
      'updated',
      'deleted',
    ]);
    expect(events.every((e) => e.entity_type === 'workspace')).toBe(true);
  });

  it('name is unique per workspace: 409 on create and on rename; another workspace may reuse it', async () => {
    const mine = await app.tenant();
    const first = (
      await rule(mine.http, { name: 'Unique', field: 'hasEmail', condition: 'equals', value: true, points: 1 })
    ).body.data;
    const dup = await rule(mine.http, {
      name: 'Unique',
      field: 'hasPhone',
      condition: 'equals',
      value: true,
      points: 1,
    });
    expectError(dup, 409, /"Unique" already exists/);
    const other = (
      await rule(mine.http, { name: 'Other', field: 'hasPhone', condition: 'equals', value: true, points: 1 })
    ).body.data;
    expect((await mine.http.put(`${RULES}/${other._id}`, { name: 'Unique' })).status).toBe(409);
    expect((await mine.http.put(`${RULES}/${first._id}`, { name: 'Unique', points: 2 })).status).toBe(200);
    expect(
      (await rule(t.http, { name: 'Unique', field: 'hasEmail', condition: 'equals', value: true, points: 1 })).status,
    ).toBe(201);
  });

  it('writes need the owner or admin role and the write scope; reads need read', async () => {
    const id = (await rule(t.http, { field: 'hasEmail', condition: 'equals', value: true, points: 1 })).body.data._id;
    const member = await app.key(t.workspaceId, ['read', 'write'], 'member');
    expect((await member.get(RULES)).status).toBe(200);
    expect((await member.get(`${RULES}/${id}`)).status).toBe(200);
    const writes = [
      await member.post(RULES, { name: 'x', field: 'hasEmail', condition: 'equals', value: true, points: 1 }),
      await member.put(`${RULES}/${id}`, { points: 5 }),
      await member.delete(`${RULES}/${id}`),
    ];
    for (const res of writes) {
      expectError(res, 403, /owner or admin role/);
    }
    const adminReader = await app.key(t.workspaceId, ['read'], 'admin');
    expect(
      (await adminReader.post(RULES, { name: 'y', field: 'hasEmail', condition: 'equals', value: true, points: 1 }))
        .status,
    ).toBe(403);
    const admin = await app.key(t.workspaceId, ['read', 'write'], 'admin');
    expect((await admin.put(`${RULES}/${id}`, { points: 5 })).status).toBe(200);
  });

  const valid = { name: 'n', field: 'hasEmail', condition: 'equals', value: true, points: 10 };
  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing name', { ...valid, name: undefined }, /name/],
    ['name over 200', { ...valid, name: 'x'.repeat(201) }, /name.*200/],
    ['missing field', { ...valid, field: undefined }, /field/],
    ['unknown field', { ...valid, field: 'colour' }, /field: unknown field "colour"/],
    ['unknown contact field', { ...valid, field: 'contact.age' }, /field: unknown field/],
    ['missing condition', { ...valid, condition: undefined }, /condition/],
    ['unknown condition', { ...valid, condition: 'like' }, /condition: must be one of/],
    [
      'condition not fitting the field',
      { ...valid, condition: 'greater_than', value: 1 },
      /condition: "greater_than" does not apply to hasEmail/,
    ],
    ['missing points', { ...valid, points: undefined }, /points/],
    ['points 101', { ...valid, points: 101 }, /points: must be at most 100/],
    ['points -101', { ...valid, points: -101 }, /points: must be at least -100/],
    ['fractional points', { ...valid, points: 1.5 }, /points: must be an integer/],
    ['points as string', { ...valid, points: '5' }, /points/],
    [
      'value with exists',
      { ...valid, field: 'source', condition: 'exists', value: 'web' },
      /value: must be omitted for exists/,
    ],
    [
      'in without an array',
      { ...valid, field: 'source', condition: 'in', value: 'web' },
      /value: must be a non-empty array for in/,
    ],
    [
      'not_in with []',
      { ...valid, field: 'source', condition: 'not_in', value: [] },
      /value: must be a non-empty array for not_in/,
    ],
    [
      'in with 101 values',
      { ...valid, field: 'source', condition: 'in', value: Array.from({ length: 101 }, (_, i) => `v${i}`) },
      /value: at most 100/,
    ],
    [
      'greater_than with text',
      { ...valid, field: 'value', condition: 'greater_than', value: 'big' },
      /value: must be a number for greater_than/,
    ],
    [
      'equals without value',
      { ...valid, field: 'source', condition: 'equals', value: undefined },
      /value: is required for equals/,
    ],
    ['boolean field with text', { ...valid, value: 'yes' }, /value: must be true or false/],
    [
      'contactType outside its values',
      { ...valid, field: 'contactType', value: 'robot' },
      /value: must be one of person, company, none/,
    ],
    ['value as object', { ...valid, field: 'customFields.x', value: { a: 1 } }, /value/],
    ['sortOrder fractional', { ...valid, sortOrder: 0.5 }, /sortOrder/],
    ['isActive as string', { ...valid, isActive: 'yes' }, /isActive/],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, RULES, body, message, async () => (await t.http.get(RULES)).body.total);
  });

  it('a workspace holds at most 200 scoring rules (the 201st is 409)', async () => {
    const mine = await app.tenant();
    const ctx = await workspaceCtx(app, mine.http);
    for (let i = 0; i < MAX_SCORING_RULES - 1; i++)
      ctx.em.persist(
        createRecord(ctx, LeadScoringRule, {
          name: `r${i}`,
          field: 'hasEmail',
          condition: 'equals',
          value: true,
          points: 0,
        }),
      );
    await ctx.em.flush();
    expect((await rule(mine.http, { field: 'hasEmail', condition: 'equals', value: true, points: 1 })).status).toBe(
      201,
    );
    const over = await rule(mine.http, { field: 'hasEmail', condition: 'equals', value: true, points: 1 });
    expectError(over, 409, /at most 200 lead scoring rules/);
    const all = await mine.http.get(`${RULES}?limit=200`);
    expect(all.body).toMatchObject({ page: 1, limit: 200, total: 200 });
    expect(all.body.data).toHaveLength(200);
    expect((await mine.http.get(`${RULES}?limit=201`)).status).toBe(400);
  });

  it('accepts the boundaries: points ±100, 100 in-values, a 200-character name', async () => {
    expect((await t.http.post(RULES, { ...valid, name: 'x'.repeat(200), points: 100 })).status).toBe(201);
    expect((await rule(t.http, { field: 'hasPhone', condition: 'equals', value: true, points: -100 })).status).toBe(
      201,
    );
    expect(
      (
        await rule(t.http, {
          field: 'source',
          condition: 'in',
          value: Array.from({ length: 100 }, (_, i) => `v${i}`),
          points: 1,
        })
      ).status,
    ).toBe(201);
  });
});

describe('lead scores', () => {
  it('are computed on create with a breakdown of every matched rule; 0 and [] when none match', async () => {
    const mine = await app.tenant();
    const r1 = (
      await rule(mine.http, { name: 'email', field: 'hasEmail', condition: 'equals', value: true, points: 20 })
    ).body.data;
    const r2 = (
      await rule(mine.http, {
        name: 'web',
        field: 'source',
        condition: 'in',
        value: ['web', 'ads'],
        points: 15,
        sortOrder: 1,
      })
    ).body.data;
    await rule(mine.http, {
      name: 'inactive',
      field: 'hasEmail',
      condition: 'equals',
      value: true,
      points: 50,
      isActive: false,
    });
    const lead = (await makeLead(mine.http, { email: 'x@y.dk', source: 'Web' })).body.data;
    expect(lead.score).toBe(35);
    expect(lead.scoreBreakdown).toEqual([
      { ruleId: r1._id, name: 'email', field: 'hasEmail', condition: 'equals', points: 20 },
      { ruleId: r2._id, name: 'web', field: 'source', condition: 'in', points: 15 },
    ]);
    expect((await mine.http.get(`/api/v1/leads/${lead._id}`)).body.data).toMatchObject({
      score: 35,
      scoreBreakdown: lead.scoreBreakdown,
    });
    expect((await makeLead(mine.http, { source: 'fair', score: 80 })).body.data).toMatchObject({
      score: 0,
      scoreBreakdown: [],
    });
  });

  it('negative points subtract and the total is clamped to 0..100', async () => {
    const mine = await app.tenant();
    await rule(mine.http, { field: 'hasValue', condition: 'equals', value: true, points: 70 });
    await rule(mine.http, { field: 'value', condition: 'greater_than', value: 10_000, points: 60 });
    await rule(mine.http, { field: 'tags', condition: 'not_in', value: ['vip'], points: -80 });
    expect((await makeLead(mine.http, { value: 50_000, tags: ['vip'] })).body.data.score).toBe(100);
    expect((await makeLead(mine.http, { value: 5_000, tags: ['vip'] })).body.data.score).toBe(70);
    const zero = (await makeLead(mine.http, { value: 5_000 })).body.data;
    expect(zero.score).toBe(0);
    expect(zero.scoreBreakdown.map((b: any) => b.points)).toEqual([70, -80]);
  });

  it('understands tags, exists, customFields.<key>, contactType and contact.<field>', async () => {
    const mine = await app.tenant();
    const em = forkForWorkspace(app.runtime.deps.orm.em, mine.workspaceId);
    em.create(CustomFieldDefinition, {
      workspaceId: mine.workspaceId,
      entityType: 'lead',
      key: 'seats',
      label: 'Seats',
      type: 'number',
      options: [],
    });
    await em.flush();
    await rule(mine.http, { name: 'tag', field: 'tags', condition: 'equals', value: 'partner', points: 1 });
    await rule(mine.http, {
      name: 'seats',
      field: 'customFields.seats',
      condition: 'greater_than',
      value: 10,
      points: 2,
    });
    await rule(mine.http, { name: 'phone', field: 'hasPhone', condition: 'equals', value: true, points: 4 });
    await rule(mine.http, { name: 'person', field: 'contactType', condition: 'equals', value: 'person', points: 8 });
    await rule(mine.http, { name: 'cto', field: 'contact.title', condition: 'in', value: ['CEO', 'CTO'], points: 16 });
    await rule(mine.http, {
      name: 'domain',
      field: 'contact.email',
      condition: 'contains',
      value: '@acme.dk',
      points: 32,
    });
    await rule(mine.http, { name: 'source', field: 'source', condition: 'not_exists', points: 37 });
    const person = (
      await makePerson(mine.http, {
        title: 'CTO',
        emails: [{ email: 'me@home.test' }, { email: 'ada@acme.dk' }],
        phones: [{ phone: '+45 1' }],
      })
    ).body.data;
    const withAll = (
      await makeLead(mine.http, {
        source: 'web',
        tags: ['Partner'],
        customFields: { seats: 25 },
        personRef: person._id,
      })
    ).body.data;
    expect(withAll.scoreBreakdown.map((b: any) => b.name)).toEqual([
      'tag',
      'seats',
      'phone',
      'person',
      'cto',
      'domain',
    ]);
    expect(withAll.score).toBe(63);
    const bare = (await makeLead(mine.http, { customFields: { seats: 5 } })).body.data;
    expect(bare.scoreBreakdown.map((b: any) => b.name)).toEqual(['source']);
  });

  it('accept exists / not_exists on the boolean fields (true / false), next to equals true/false', async () => {
    const mine = await app.tenant();
    const created = await rule(mine.http, { name: 'Has e-mail', field: 'hasEmail', condition: 'exists', points: 30 });
    expectCreated(created, { field: 'hasEmail', condition: 'exists', value: null });
    await rule(mine.http, { name: 'No phone', field: 'hasPhone', condition: 'not_exists', points: 5 });
    await rule(mine.http, { name: 'Has value', field: 'hasValue', condition: 'exists', points: 7 });
    await rule(mine.http, {
      name: 'Has e-mail (equals)',
      field: 'hasEmail',
      condition: 'equals',
      value: true,
      points: 11,
    });
    const reachable = (await makeLead(mine.http, { email: 'lead@example.test', value: 100 })).body.data;
    expect(reachable.scoreBreakdown.map((b: any) => b.name)).toEqual([
      'Has e-mail',
      'No phone',
      'Has value',
      'Has e-mail (equals)',
    ]);
    expect(reachable.score).toBe(53);
    const bare = (await makeLead(mine.http, { phone: '+45 12345678', value: 0 })).body.data;
    expect(bare.scoreBreakdown).toEqual([]);
    expect((await rule(mine.http, { field: 'hasEmail', condition: 'exists', value: true, points: 1 })).status).toBe(
      400,
    );
  });

  it('are recalculated on every update (and shown in preview) with the score in changes', async () => {
    const mine = await app.tenant();
    await rule(mine.http, { field: 'status', condition: 'equals', value: 'qualified', points: 40 });
    await rule(mine.http, { field: 'customFields.budget', condition: 'exists', points: 10 });
    const lead = (await makeLead(mine.http)).body.data;
    expect(lead.score).toBe(0);
    const preview = await mine.http.put(`/api/v1/leads/${lead._id}?preview=true`, { status: 'qualified' });
    expect(preview.body.data.diff.score).toEqual({ from: 0, to: 40 });
    expect((await mine.http.get(`/api/v1/leads/${lead._id}`)).body.data.score).toBe(0);
    const up = await mine.http.put(`/api/v1/leads/${lead._id}`, {
      status: 'qualified',
      customFields: { budget: 'yes' },
    });
    expect(up.body.data.score).toBe(50);
    const events = await eventsFor(app.runtime.deps.orm, lead._id);
    expect(events.at(-1)!.payload.changes.score).toEqual({ from: 0, to: 50 });
    const same = await mine.http.put(`/api/v1/leads/${lead._id}`, { status: 'qualified' });
    expect(same.body.data.updatedAt).toBe(up.body.data.updatedAt); // nothing changed, nothing written
    expect((await eventsFor(app.runtime.deps.orm, lead._id)).length).toBe(events.length);
    const down = await mine.http.put(`/api/v1/leads/${lead._id}`, { customFields: { budget: null } });
    expect(down.body.data).toMatchObject({ score: 40 });
    expect(down.body.data.scoreBreakdown).toHaveLength(1);
  });
});

describe('background rescoring', () => {
  const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'lead-scoring-test');
  let dispatcher: OutboxDispatcher | undefined;
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
  });
  const startDispatcher = async (workspaceId: string) => {
    // Only the lead subscribers: this suite should not depend on other features' engines.
    const { orm, config } = app.runtime.deps;
    const subscribers = buildSubscribers(
      { orm, config, log },
      { without: ['automations', 'contract-envelopes', 'search-index', 'webhooks', 'sequences'] },
    ).filter((s) => s.name.startsWith('lead-'));
    expect(subscribers.map((s) => s.name).sort()).toEqual(['lead-contact-sync', 'lead-rescore']);
    dispatcher = createOutboxDispatcher({
      pgConnectionString: app.config.databaseUrl,
      subscribers,
      log,
      workspaceIds: [workspaceId],
      pollIntervalMs: 100,
      backoff: () => 0,
    });
    await dispatcher.start();
  };
  const scoreOf = async (tenant: Tenant, id: string) => (await tenant.http.get(`/api/v1/leads/${id}`)).body.data;

  it('rescores every lead of the workspace after a rule is created, updated or deleted, without lead_updated events', async () => {
    const mine = await app.tenant();
    const reachable = (await makeLead(mine.http, { email: 'a@b.dk' })).body.data;
    const silent = (await makeLead(mine.http)).body.data;
    await startDispatcher(mine.workspaceId);

    const created = (
      await rule(mine.http, { name: 'email', field: 'hasEmail', condition: 'equals', value: true, points: 25 })
    ).body.data;
    const after = await waitFor(
      () => scoreOf(mine, reachable._id),
      (l) => l.score === 25,
      'the rescore after create',
    );
    expect(after.scoreBreakdown).toEqual([
      { ruleId: created._id, name: 'email', field: 'hasEmail', condition: 'equals', points: 25 },
    ]);
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(reachable.updatedAt));
    expect((await scoreOf(mine, silent._id)).score).toBe(0);

    await mine.http.put(`${RULES}/${created._id}`, { points: 45 });
    await waitFor(
      () => scoreOf(mine, reachable._id),
      (l) => l.score === 45,
      'the rescore after update',
    );
    await mine.http.delete(`${RULES}/${created._id}`);
    const cleared = await waitFor(
      () => scoreOf(mine, reachable._id),
      (l) => l.score === 0,
      'the rescore after delete',
    );
    expect(cleared.scoreBreakdown).toEqual([]);
    expect((await eventsFor(app.runtime.deps.orm, reachable._id)).map((e) => e.type)).toEqual(['lead_created']);

    // Changes in quick succession: earlier rescores may be skipped, the last one sees every rule.
    await Promise.all(
      [5, 6, 7].map((points) => rule(mine.http, { field: 'hasEmail', condition: 'equals', value: true, points })),
    );
    await waitFor(
      () => scoreOf(mine, reachable._id),
      (l) => l.score === 18 && l.scoreBreakdown.length === 3,
      'the rescore after three quick changes',
    );
  });

  it('rescores leads when their contact person changes, and clears references to deleted people', async () => {
    const mine = await app.tenant();
    await rule(mine.http, { field: 'contact.title', condition: 'equals', value: 'CTO', points: 30 });
    const person = (await makePerson(mine.http, { title: 'Engineer' })).body.data;
    const lead = (await makeLead(mine.http, { personRef: person._id })).body.data;
    expect(lead.score).toBe(0);
    await startDispatcher(mine.workspaceId);
    await mine.http.put(`/api/v1/people/${person._id}`, { title: 'CTO' });
    await waitFor(
      () => scoreOf(mine, lead._id),
      (l) => l.score === 30,
      'the rescore after the person changed',
    );
    await mine.http.delete(`/api/v1/people/${person._id}`);
    const unlinked = await waitFor(
      () => scoreOf(mine, lead._id),
      (l) => l.personRef === null,
      'the dangling personRef to be cleared',
    );
    expect(unlinked.score).toBe(0);
  });

  it('walks the leads in keyset batches and writes only those whose score changed', async () => {
    const mine = await app.tenant();
    for (let i = 0; i < 5; i++) await makeLead(mine.http, { source: i % 2 ? 'web' : 'fair' });
    const em = forkForWorkspace(app.runtime.deps.orm.em, mine.workspaceId);
    expect(await rescoreLeads(em, {}, 2)).toEqual({ scanned: 5, updated: 0 });
    await rule(mine.http, { field: 'source', condition: 'equals', value: 'web', points: 12 });
    expect(await rescoreLeads(em, {}, 2)).toEqual({ scanned: 5, updated: 2 });
    expect(await rescoreLeads(em, {}, 2)).toEqual({ scanned: 5, updated: 0 });
    const scores = (await mine.http.get('/api/v1/leads?source=web')).body.data.map((l: any) => l.score);
    expect(scores).toEqual([12, 12]);
  });
});
