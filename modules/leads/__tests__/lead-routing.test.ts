import { LeadRoutingRule } from '../lead-routing-rule.entity';
import { MAX_ROUTING_RULES } from '../lead-routing.service';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { createRecord } from '../../../platform/shared/records';
import { createUser } from '../../workspaces/workspaces.service';
import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeLead, unique } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectRejectedCreate } from '../../../test/support/expect';
import { workspaceCtx } from '../../../test/support/automations';

let app: TestApp;
let t: Tenant;
let users: string[];
withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  users = await addUsers(t, 3);
});

const RULES = '/api/v1/lead-routing/rules';

async function addUsers(tenant: Tenant, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const em = forkForWorkspace(app.runtime.deps.orm.em, tenant.workspaceId);
    ids.push(
      (
        await createUser(em, {
          workspaceId: tenant.workspaceId,
          email: `rep-${unique()}@example.test`,
          firstName: `Rep ${i}`,
          role: 'member',
        })
      ).id,
    );
  }
  return ids;
}

describe('routing rules CRUD', () => {
  it('creates with defaults, lists in evaluation order, reads, updates partially, deletes; emits rule events', async () => {
    const mine = await app.tenant();
    const [u1, u2] = await addUsers(mine, 2);
    const a = await mine.http.post(RULES, {
      name: 'Web to Ann',
      conditions: [{ field: 'source', operator: 'equals', value: 'web' }],
      assignment: { type: 'user', userId: u1 },
      sortOrder: 10,
    });
    expectCreated(a, {
      name: 'Web to Ann',
      description: null,
      conditions: [{ field: 'source', operator: 'equals', value: 'web' }],
      assignment: { type: 'user', userId: u1 },
      isActive: true,
      sortOrder: 10,
    });
    expect(a.body.data).not.toHaveProperty('rrCursor');
    const b = (
      await mine.http.post(RULES, { name: 'Everyone else', assignment: { type: 'round_robin', userIds: [u1, u2] } })
    ).body.data;
    expect(b).toMatchObject({ conditions: [], sortOrder: 0 });
    expect((await mine.http.get(RULES)).body.data.map((r: any) => r.name)).toEqual(['Everyone else', 'Web to Ann']);
    expect((await mine.http.get(`${RULES}/${a.body.data._id}`)).body.data.name).toBe('Web to Ann');

    const put = await mine.http.put(`${RULES}/${a.body.data._id}`, {
      isActive: false,
      assignment: { type: 'user', userId: u2 },
    });
    expect(put.body.data).toMatchObject({
      name: 'Web to Ann',
      isActive: false,
      assignment: { type: 'user', userId: u2 },
      conditions: [{ field: 'source', operator: 'equals', value: 'web' }],
    });
    expect((await mine.http.delete(`${RULES}/${b._id}`)).body).toEqual({ ok: true });
    expect((await mine.http.get(`${RULES}/${b._id}`)).status).toBe(404);
    expect((await mine.http.put(`${RULES}/${b._id}`, { isActive: true })).status).toBe(404);
    const actions = (await eventsFor(app.runtime.deps.orm, mine.workspaceId))
      .filter((e) => e.type === 'lead_routing_rules_changed')
      .map((e) => e.payload.action);
    expect(actions).toEqual(['created', 'created', 'updated', 'deleted']);
  });

  it('name is unique per workspace (409); writes need owner/admin', async () => {
    const body = { name: `Unique ${unique()}`, assignment: { type: 'user', userId: t.userId } };
    const first = (await t.http.post(RULES, body)).body.data;
    const dup = await t.http.post(RULES, body);
    expectError(dup, 409, /already exists/);
    const other = (await t.http.post(RULES, { ...body, name: `Other ${unique()}` })).body.data;
    expect((await t.http.put(`${RULES}/${other._id}`, { name: body.name })).status).toBe(409);

    const member = await app.key(t.workspaceId, ['read', 'write'], 'member');
    expect((await member.get(RULES)).status).toBe(200);
    for (const res of [
      await member.post(RULES, { ...body, name: 'm' }),
      await member.put(`${RULES}/${first._id}`, { sortOrder: 3 }),
      await member.delete(`${RULES}/${first._id}`),
    ]) {
      expect(res.status).toBe(403);
    }
    await t.http.delete(`${RULES}/${first._id}`);
    await t.http.delete(`${RULES}/${other._id}`);
  });

  const missing = '0123456789abcdef01234567';
  const bad: [string, () => Record<string, unknown>, RegExp][] = [
    ['missing name', () => ({ assignment: { type: 'user', userId: t.userId } }), /name/],
    ['missing assignment', () => ({ name: 'x' }), /assignment/],
    ['unknown assignment type', () => ({ name: 'x', assignment: { type: 'team', userId: t.userId } }), /assignment/],
    [
      'unknown user',
      () => ({ name: 'x', assignment: { type: 'user', userId: missing } }),
      /assignment\.userId: no user/,
    ],
    ['malformed user id', () => ({ name: 'x', assignment: { type: 'user', userId: 'bob' } }), /assignment\.userId/],
    [
      'empty round robin',
      () => ({ name: 'x', assignment: { type: 'round_robin', userIds: [] } }),
      /assignment\.userIds: at least one user/,
    ],
    [
      'round robin repeating a user',
      () => ({ name: 'x', assignment: { type: 'round_robin', userIds: [t.userId, t.userId] } }),
      /must not repeat/,
    ],
    [
      'round robin with an unknown user',
      () => ({ name: 'x', assignment: { type: 'round_robin', userIds: [t.userId, missing] } }),
      /assignment\.userIds\[1\]: no user/,
    ],
    [
      'round robin over 50 users',
      () => ({
        name: 'x',
        assignment: {
          type: 'round_robin',
          userIds: Array.from({ length: 51 }, (_, i) => i.toString(16).padStart(24, '0')),
        },
      }),
      /at most 50 users/,
    ],
    [
      'unknown condition field',
      () => ({
        name: 'x',
        conditions: [{ field: 'colour', operator: 'equals', value: 'x' }],
        assignment: { type: 'user', userId: t.userId },
      }),
      /conditions\.0\.field: unknown field/,
    ],
    [
      'unknown operator',
      () => ({
        name: 'x',
        conditions: [{ field: 'source', operator: 'like', value: 'x' }],
        assignment: { type: 'user', userId: t.userId },
      }),
      /conditions\.0\.operator/,
    ],
    [
      'operator not fitting the field',
      () => ({
        name: 'x',
        conditions: [
          { field: 'source', operator: 'equals', value: 'a' },
          { field: 'tags', operator: 'greater_than', value: 1 },
        ],
        assignment: { type: 'user', userId: t.userId },
      }),
      /conditions\.1\.operator: "greater_than" does not apply/,
    ],
    [
      'in without array',
      () => ({
        name: 'x',
        conditions: [{ field: 'source', operator: 'in', value: 'web' }],
        assignment: { type: 'user', userId: t.userId },
      }),
      /conditions\.0\.value: must be a non-empty array/,
    ],
    [
      '21 conditions',
      () => ({
        name: 'x',
        conditions: Array.from({ length: 21 }, () => ({ field: 'source', operator: 'exists' })),
        assignment: { type: 'user', userId: t.userId },
      }),
      /at most 20 conditions/,
    ],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, RULES, body(), message, async () => (await t.http.get(RULES)).body.total);
  });

  it('accepts 20 conditions and 50 round-robin users at the boundary', async () => {
    const mine = await app.tenant();
    const many = await addUsers(mine, 49);
    const res = await mine.http.post(RULES, {
      name: 'Boundary',
      conditions: Array.from({ length: 20 }, () => ({ field: 'source', operator: 'exists' })),
      assignment: { type: 'round_robin', userIds: [mine.userId, ...many] },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.assignment.userIds).toHaveLength(50);
  });
});

it('a workspace holds at most 100 routing rules (the 101st is 409)', async () => {
  const mine = await app.tenant();
  const ctx = await workspaceCtx(app, mine.http);
  for (let i = 0; i < MAX_ROUTING_RULES - 1; i++)
    ctx.em.persist(
      createRecord(ctx, LeadRoutingRule, {
        name: `r${i}`,
        conditions: [],
        assignment: { type: 'user', userId: mine.userId },
      }),
    );
  await ctx.em.flush();
  const body = () => ({ name: `Route ${unique()}`, assignment: { type: 'user', userId: mine.userId } });
  expect((await mine.http.post(RULES, body())).status).toBe(201);
  expectError(await mine.http.post(RULES, body()), 409, /at most 100 lead routing rules/);
});

describe('routing on lead creation', () => {
  it('the first active matching rule by sortOrder assigns the owner; an explicit ownerId wins; no match → the caller', async () => {
    const mine = await app.tenant();
    const [ann, bob, cid] = await addUsers(mine, 3);
    await mine.http.post(RULES, {
      name: 'Inactive',
      sortOrder: -5,
      isActive: false,
      assignment: { type: 'user', userId: cid },
    });
    await mine.http.post(RULES, {
      name: 'Big web deals',
      sortOrder: 1,
      conditions: [
        { field: 'source', operator: 'equals', value: 'web' },
        { field: 'value', operator: 'greater_than', value: 10_000 },
      ],
      assignment: { type: 'user', userId: ann },
    });
    await mine.http.post(RULES, {
      name: 'Web',
      sortOrder: 2,
      conditions: [{ field: 'source', operator: 'equals', value: 'web' }],
      assignment: { type: 'user', userId: bob },
    });
    expect((await makeLead(mine.http, { source: 'web', value: 50_000 })).body.data.ownerId).toBe(ann);
    expect((await makeLead(mine.http, { source: 'web', value: 500 })).body.data.ownerId).toBe(bob);
    expect((await makeLead(mine.http, { source: 'fair' })).body.data.ownerId).toBe(mine.userId);
    expect((await makeLead(mine.http, { source: 'web', ownerId: cid })).body.data.ownerId).toBe(cid);
    const preview = await mine.http.post('/api/v1/leads?preview=true', { title: 'p', source: 'web' });
    expect(preview.body.data.proposed.ownerId).toBe(bob);
  });

  it('conditions may use the fresh score', async () => {
    const mine = await app.tenant();
    const [hot] = await addUsers(mine, 1);
    await mine.http.post('/api/v1/lead-scoring/rules', {
      name: 'email',
      field: 'hasEmail',
      condition: 'equals',
      value: true,
      points: 60,
    });
    await mine.http.post(RULES, {
      name: 'Hot leads',
      conditions: [{ field: 'score', operator: 'greater_than', value: 50 }],
      assignment: { type: 'user', userId: hot },
    });
    expect((await makeLead(mine.http, { email: 'a@b.dk' })).body.data).toMatchObject({ score: 60, ownerId: hot });
    expect((await makeLead(mine.http)).body.data.ownerId).toBe(mine.userId);
  });

  it('exists / not_exists on hasEmail and hasPhone mean true / false, as in scoring', async () => {
    const mine = await app.tenant();
    const [reachable, callable] = await addUsers(mine, 2);
    const r1 = await mine.http.post(RULES, {
      name: 'Has e-mail',
      conditions: [{ field: 'hasEmail', operator: 'exists' }],
      assignment: { type: 'user', userId: reachable },
      sortOrder: 1,
    });
    expect(r1.status).toBe(201);
    await mine.http.post(RULES, {
      name: 'Phone only',
      conditions: [
        { field: 'hasEmail', operator: 'not_exists' },
        { field: 'hasPhone', operator: 'exists' },
      ],
      assignment: { type: 'user', userId: callable },
      sortOrder: 2,
    });
    expect((await makeLead(mine.http, { email: 'a@b.dk' })).body.data.ownerId).toBe(reachable);
    expect((await makeLead(mine.http, { phone: '+45 12345678' })).body.data.ownerId).toBe(callable);
    expect((await makeLead(mine.http)).body.data.ownerId).toBe(mine.userId);
  });

  it('round robin rotates over its users, one per created lead; preview does not take a turn', async () => {
    const rule = (
      await t.http.post(RULES, {
        name: `RR ${unique()}`,
        conditions: [{ field: 'tags', operator: 'equals', value: 'rr-test' }],
        assignment: { type: 'round_robin', userIds: users },
      })
    ).body.data;
    const preview = await t.http.post('/api/v1/leads', { title: 'p', tags: ['rr-test'], preview: true });
    expect(preview.body.data.proposed.ownerId).toBe(users[0]);
    const owners: string[] = [];
    for (let i = 0; i < 4; i++) owners.push((await makeLead(t.http, { tags: ['rr-test'] })).body.data.ownerId);
    expect(owners).toEqual([users[0], users[1], users[2], users[0]]);
    await t.http.delete(`${RULES}/${rule._id}`);
  });

  it('round robin is race-free: concurrent creates each get the next turn', async () => {
    const rule = (
      await t.http.post(RULES, {
        name: `RR race ${unique()}`,
        conditions: [{ field: 'tags', operator: 'equals', value: 'rr-race' }],
        assignment: { type: 'round_robin', userIds: users },
      })
    ).body.data;
    const results = await Promise.all(Array.from({ length: 9 }, () => makeLead(t.http, { tags: ['rr-race'] })));
    expect(results.every((r) => r.status === 201)).toBe(true);
    const counts = new Map<string, number>();
    for (const r of results) counts.set(r.body.data.ownerId, (counts.get(r.body.data.ownerId) ?? 0) + 1);
    expect([...counts.entries()].sort()).toEqual(users.map((u) => [u, 3]).sort());
    await t.http.delete(`${RULES}/${rule._id}`);
  });
});
