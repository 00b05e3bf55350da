import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

describe('/api/v1/agents', () => {
  it('creates an agent with defaults, lists and gets it', async () => {
    const res = await t.http.post('/api/v1/agents', {
      name: ' Qualifier ',
      goal: 'Qualify new leads',
      permissions: { webAccess: true, extra: 'dropped' },
    });
    expectCreated(res, {
      name: 'Qualifier',
      goal: 'Qualify new leads',
      description: null,
      modelTier: 'balanced',
      enabled: true,
      permissions: {
        trustLevel: 'suggest',
        allowedModules: [],
        webAccess: true,
        maxActionsPerRun: 10,
        maxDailyActions: 100,
      },
    });
    expect(res.body.data.permissions.extra).toBeUndefined();
    const id = res.body.data._id;
    expect((await t.http.get(`/api/v1/agents/${id}`)).body.data.name).toBe('Qualifier');
    const list = await t.http.get('/api/v1/agents');
    expect(list.body).toMatchObject({ page: 1, limit: 20, total: 1 });
    expect(list.body.data[0]._id).toBe(id);
    expect((await eventsFor(app.runtime.deps.orm, id)).map((e) => e.type)).toEqual(['agent_created']);
  });

  it('PUT replaces (omitted fields back to defaults), PATCH merges permissions', async () => {
    const id = (
      await t.http.post('/api/v1/agents', {
        name: 'A',
        description: 'd',
        modelTier: 'fast',
        enabled: false,
        permissions: { maxDailyActions: 5 },
      })
    ).body.data._id;
    const patched = await t.http.patch(`/api/v1/agents/${id}`, { permissions: { webAccess: true }, icon: 'robot' });
    expect(patched.body.data).toMatchObject({
      description: 'd',
      modelTier: 'fast',
      enabled: false,
      icon: 'robot',
      permissions: { maxDailyActions: 5, webAccess: true },
    });
    const replaced = await t.http.put(`/api/v1/agents/${id}`, { name: 'B', modelTier: 'thorough' });
    expect(replaced.body.data).toMatchObject({
      name: 'B',
      description: null,
      icon: null,
      modelTier: 'thorough',
      enabled: true,
      permissions: { maxDailyActions: 100, webAccess: false },
    });
    expect((await t.http.put(`/api/v1/agents/${id}`, { modelTier: 'fast' })).status).toBe(400);
    expect((await t.http.patch(`/api/v1/agents/${id}`, { description: '' })).body.data.description).toBeNull();
  });

  it('validates input with 400 and deletes', async () => {
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(201) },
      { name: 'A', modelTier: 'smart' },
      { name: 'A', enabled: 'yes' },
      { name: 'A', permissions: { maxActionsPerRun: -1 } },
      { name: 'A', permissions: { maxActionsPerRun: 1.5 } },
      { name: 'A', permissions: { allowedModules: [''] } },
    ]) {
      const res = await t.http.post('/api/v1/agents', body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(typeof res.body.error).toBe('string');
    }
    const id = (await t.http.post('/api/v1/agents', { name: 'Gone' })).body.data._id;
    expect((await t.http.delete(`/api/v1/agents/${id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/agents/${id}`)).status).toBe(404);
    expect((await t.http.get('/api/v1/agents?limit=101')).status).toBe(400);
    expect(
      (await t.http.get('/api/v1/agents?enabled=false')).body.data.every((a: { enabled: boolean }) => !a.enabled),
    ).toBe(true);
  });

  it('needs write for writes', async () => {
    const reader = await app.key(t.workspaceId, ['read']);
    expect((await reader.post('/api/v1/agents', { name: 'No' })).status).toBe(403);
    expect((await reader.get('/api/v1/agents')).status).toBe(200);
  });
});
