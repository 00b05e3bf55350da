/**
 * Issue 27 part 2: every evaluation of an active automation's trigger that starts no run is recorded
 * (reason and the values that decided it) and listed by GET /api/v1/automations/:id/skips.
 */
import { SCOPES } from '../../../platform/context';
import { DomainError } from '../../../platform/errors';
import { newId } from '../../../platform/ids';
import { createLead } from '../../leads/leads.service';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { startFromWebhook } from '../engine/manual';
import { startExecution, startExecutions, type StartRequest } from '../engine/start';
import { pruneSkips } from '../engine/skips';
import { setWorkspaceStatus } from '../../workspaces/workspaces.service';
import type { Tenant } from '../../../test/support/app';
import { action, chainGraph, createAutomation, waitFor } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';
import { redeliverEvents } from '../../../test/support/outbox';

const suite = engineSuite('Skips');

const note = [action('create_note', { noteContent: 'Hi {{lead.title}}' })];
const webhook = (config: Record<string, unknown> = {}) =>
  chainGraph({ triggerType: 'webhook', config: { secret: 'k', ...config } }, note);
const skipsOf = async (tenant: Tenant, id: string, query = '') => {
  const res = await tenant.http.get(`/api/v1/automations/${id}/skips${query}`);
  expect(res.status).toBe(200);
  return res.body;
};
const request = (tenant: Tenant, automationId: string, triggerKey = `k-${newId()}`): StartRequest => ({
  workspaceId: tenant.workspaceId,
  automationId,
  triggerType: 'webhook',
  triggerKey,
  context: {},
});
/** Leads written in one transaction, so their events go out in one dispatcher batch. */
async function leads(tenant: Tenant, titles: string[]): Promise<string[]> {
  const em = forkForWorkspace(suite.h.app.runtime.deps.orm.em, tenant.workspaceId);
  const actor = { workspaceId: tenant.workspaceId, userId: tenant.userId, role: 'owner' as const, scopes: [...SCOPES] };
  return em.transactional(async (tem) => {
    const ids: string[] = [];
    for (const title of titles)
      ids.push(((await createLead({ em: tem, actor }, { title }, { preview: false })) as { _id: string })._id);
    return ids;
  });
}

describe('skips of outbox-triggered automations', () => {
  it('entity type mismatch, conditions false and a redelivered event (duplicate), each with its values', async () => {
    const tenant = await suite.h.app.tenant('Skips: outbox');
    const dealsOnly = await createAutomation(
      tenant.http,
      chainGraph({ triggerType: 'record_created', config: { entityTypes: ['deal'] } }, note),
    );
    const stagesOnly = await createAutomation(
      tenant.http,
      chainGraph(
        { triggerType: 'record_changed', config: { entityTypes: ['lead'], changeTypes: ['stage_changed'] } },
        note,
      ),
    );
    const onLead = await createAutomation(tenant.http, chainGraph({ triggerType: 'lead_created' }, note));
    const [leadId] = await leads(tenant, ['Skipped']);
    expect((await tenant.http.put(`/api/v1/leads/${leadId}`, { title: 'Renamed' })).status).toBe(200);
    const d = suite.h.dispatcher([tenant.workspaceId]);
    await d.drainOnce();
    await d.drainOnce();
    expect(await suite.h.executionsOf(dealsOnly)).toHaveLength(0);
    expect(await suite.h.executionsOf(stagesOnly)).toHaveLength(0);
    expect(await suite.h.executionsOf(onLead)).toHaveLength(1);

    const mismatch = await skipsOf(tenant, dealsOnly);
    expect(mismatch).toMatchObject({ page: 1, limit: expect.any(Number), total: 1 });
    expect(mismatch.data[0]).toMatchObject({
      automationId: dealsOnly,
      reason: 'entity_type_mismatch',
      triggerType: 'record_created',
      entityType: 'lead',
      entityId: leadId,
      details: { eventType: 'lead_created', entity: 'lead', allowed: ['deal'] },
    });
    const notMet = await skipsOf(tenant, stagesOnly);
    expect(notMet.data).toEqual([
      expect.objectContaining({
        reason: 'conditions_false',
        entityId: leadId,
        details: expect.objectContaining({
          eventType: 'lead_updated',
          change: 'field_changed',
          filters: { entityTypes: ['lead'], changeTypes: ['stage_changed'] },
        }),
      }),
    ]);
    expect((await skipsOf(tenant, onLead)).data).toEqual([]);

    // Redelivering the event starts nothing new: a duplicate, naming the run it already started.
    await redeliverEvents(suite.h.app.runtime.deps.orm, tenant.workspaceId, 'lead_created');
    await d.drainOnce();
    const [run] = await suite.h.executionsOf(onLead);
    expect((await skipsOf(tenant, onLead)).data).toEqual([
      expect.objectContaining({
        reason: 'duplicate',
        entityId: leadId,
        details: expect.objectContaining({ executionId: run!._id }),
      }),
    ]);
    // Newest first; filtered by record.
    const both = await skipsOf(tenant, dealsOnly);
    expect(both.data.map((s: { reason: string }) => s.reason)).toEqual([
      'entity_type_mismatch',
      'entity_type_mismatch',
    ]);
    expect(both.data[0]._id > both.data[1]._id).toBe(true);
    expect((await skipsOf(tenant, dealsOnly, `?entityType=lead&entityId=${leadId}`)).total).toBe(2);
    expect((await skipsOf(tenant, dealsOnly, `?entityType=Lead&entityId=${leadId}`)).total).toBe(2);
    expect((await skipsOf(tenant, dealsOnly, `?entityType=lead&entityId=${newId()}`)).total).toBe(0);
    expect((await skipsOf(tenant, dealsOnly, `?entityType=deal`)).total).toBe(0);
  });

  it('a suspended workspace: matching automations are skipped (workspace_suspended), none runs', async () => {
    const tenant = await suite.h.app.tenant('Skips: suspended');
    const onLead = await createAutomation(tenant.http, chainGraph({ triggerType: 'lead_created' }, note));
    await setWorkspaceStatus(suite.h.app.runtime.deps.orm.em.fork(), tenant.workspaceId, 'suspended');
    try {
      const [leadId] = await leads(tenant, ['While suspended']);
      await suite.h.dispatcher([tenant.workspaceId]).drainOnce();
      expect(await suite.h.executionsOf(onLead)).toHaveLength(0);
      await setWorkspaceStatus(suite.h.app.runtime.deps.orm.em.fork(), tenant.workspaceId, 'active');
      expect((await skipsOf(tenant, onLead)).data).toEqual([
        expect.objectContaining({
          reason: 'workspace_suspended',
          entityType: 'lead',
          entityId: leadId,
          details: { eventType: 'lead_created', workspaceStatus: 'suspended' },
        }),
      ]);
    } finally {
      await setWorkspaceStatus(suite.h.app.runtime.deps.orm.em.fork(), tenant.workspaceId, 'active');
    }
  });

  it('an event written by the automation own run (loop guard)', async () => {
    const tenant = await suite.h.app.tenant('Skips: loop');
    const id = await createAutomation(
      tenant.http,
      chainGraph({ triggerType: 'lead_updated' }, [
        action('update_record', { recordType: 'lead', fieldUpdates: [{ fieldKey: 'source', value: 'automation' }] }),
      ]),
    );
    const [leadId] = await leads(tenant, ['Loop']);
    await tenant.http.put(`/api/v1/leads/${leadId}`, { status: 'qualified' });
    const d = suite.h.dispatcher([tenant.workspaceId]);
    await d.drainOnce();
    const [run] = await waitFor(async () =>
      (await suite.h.executionsOf(id)).length ? suite.h.executionsOf(id) : null,
    );
    await suite.h.waitForExecution(run!._id);
    await waitFor(async () => {
      await d.drainOnce();
      return (await skipsOf(tenant, id, '?reason=loop_guard')).total > 0;
    });
    expect(await suite.h.executionsOf(id)).toHaveLength(1);
    expect((await skipsOf(tenant, id)).data).toEqual([
      expect.objectContaining({
        reason: 'loop_guard',
        entityId: leadId,
        details: { eventType: 'lead_updated', chain: [id] },
      }),
    ]);
  });
});

describe('skips of starts', () => {
  it('an inactive automation (deactivated after the trigger matched)', async () => {
    const id = await createAutomation(suite.t.http, webhook());
    expect((await suite.t.http.post(`/api/v1/automations/${id}/toggle`)).body.data.isActive).toBe(false);
    expect(await startExecution(suite.h.engine, request(suite.t, id, 'evt-inactive'))).toEqual({
      status: 'skipped',
      reason: 'automation is inactive',
    });
    expect((await skipsOf(suite.t, id)).data).toEqual([
      expect.objectContaining({
        reason: 'inactive',
        triggerKey: 'evt-inactive',
        details: { isActive: false, deactivatedReason: null },
      }),
    ]);
  });

  it('run caps: maxRunsPerHour and maxTotalRuns (reached within one batch)', async () => {
    const hourly = await createAutomation(suite.t.http, { ...webhook(), rateLimits: { maxRunsPerHour: 1 } });
    expect((await startExecution(suite.h.engine, request(suite.t, hourly))).status).toBe('started');
    expect((await startExecution(suite.h.engine, request(suite.t, hourly))).status).toBe('skipped');
    expect((await skipsOf(suite.t, hourly)).data).toEqual([
      expect.objectContaining({
        reason: 'run_cap',
        message: 'maxRunsPerHour reached (1 runs in the last hour)',
        details: { cap: 'maxRunsPerHour', limit: 1, runs: 1 },
      }),
    ]);

    const total = await createAutomation(suite.t.http, { ...webhook(), rateLimits: { maxTotalRuns: 1 } });
    const out = await startExecutions(suite.h.engine, suite.t.workspaceId, [
      request(suite.t, total),
      request(suite.t, total),
    ]);
    expect(out.map((o) => o.status)).toEqual(['started', 'skipped']);
    expect((await skipsOf(suite.t, total)).data).toEqual([
      expect.objectContaining({
        reason: 'run_cap',
        message: 'maxTotalRuns reached (1 runs)',
        details: { cap: 'maxTotalRuns', limit: 1, runs: 1 },
      }),
    ]);
  });

  it.each([
    ['uncapped (group-committed intake)', {}],
    ['capped (locked intake)', { rateLimits: { maxRunsPerHour: 100 } }],
  ])('webhook calls over the per-automation rate limit, %s', async (_name, extra) => {
    const id = await createAutomation(suite.t.http, { ...webhook(), ...extra });
    const call = () =>
      startFromWebhook(suite.h.engine, {
        automationId: id,
        secret: 'k',
        body: { n: 1 },
        limits: { perMinute: 1, perDay: 100 },
      });
    expect((await call()).status).toBe('queued');
    const refused = await call().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DomainError);
    expect((refused as DomainError).code).toBe('rate_limited');
    // A call with a wrong secret is refused too but is no skip (unauthenticated callers write nothing).
    await startFromWebhook(suite.h.engine, {
      automationId: id,
      secret: 'x',
      body: {},
      limits: { perMinute: 1, perDay: 100 },
    }).catch(() => undefined);
    const skips = (await skipsOf(suite.t, id)).data;
    expect(skips).toEqual([
      expect.objectContaining({
        reason: 'rate_limited',
        triggerType: 'webhook',
        details: expect.objectContaining({ perMinute: 1, perDay: 100, retryAfter: expect.any(Number) }),
      }),
    ]);
    expect(JSON.stringify(skips)).not.toContain('"k"');
  });

  it('a webhook re-delivery with the same Idempotency-Key (duplicate)', async () => {
    const id = await createAutomation(suite.t.http, webhook());
    const call = () =>
      startFromWebhook(suite.h.engine, {
        automationId: id,
        secret: 'k',
        body: {},
        deliveryKey: 'delivery-1',
        limits: { perMinute: 100, perDay: 1000 },
      });
    const first = await call();
    const again = await call();
    expect(again.executionId).toBe(first.executionId);
    expect((await skipsOf(suite.t, id)).data).toEqual([
      expect.objectContaining({
        reason: 'duplicate',
        triggerKey: 'wh:delivery-1',
        details: expect.objectContaining({ executionId: first.executionId }),
      }),
    ]);
  });
});

describe('GET /api/v1/automations/:id/skips', () => {
  it('pages within the list limits, 400 on bad input, 404 for another workspace', async () => {
    const id = await createAutomation(suite.t.http, webhook());
    await suite.t.http.post(`/api/v1/automations/${id}/toggle`);
    for (let i = 0; i < 3; i++) await startExecution(suite.h.engine, request(suite.t, id, `page-${i}`));
    const page = await skipsOf(suite.t, id, '?limit=2&page=2');
    expect(page).toMatchObject({ page: 2, limit: 2, total: 3 });
    expect(page.data.map((s: { triggerKey: string }) => s.triggerKey)).toEqual(['page-0']);
    expect((await suite.t.http.get(`/api/v1/automations/${id}/skips?limit=100`)).status).toBe(200);
    for (const q of ['limit=101', 'limit=0', 'page=0', 'reason=nope', 'unknown=1', `entityId=${'x'.repeat(65)}`])
      expect((await suite.t.http.get(`/api/v1/automations/${id}/skips?${q}`)).status).toBe(400);
    const other = await suite.h.app.tenant('Skips: other');
    expect((await other.http.get(`/api/v1/automations/${id}/skips`)).status).toBe(404);
    expect((await suite.t.http.get(`/api/v1/automations/${newId()}/skips`)).status).toBe(404);
  });

  it('skips older than 14 days are pruned in batches; newer ones stay', async () => {
    const id = await createAutomation(suite.t.http, webhook());
    await suite.t.http.post(`/api/v1/automations/${id}/toggle`);
    await startExecution(suite.h.engine, request(suite.t, id, 'recent'));
    const old = new Date(Date.now() - 15 * 86_400_000);
    const em = suite.h.app.runtime.deps.orm.em.fork();
    for (let i = 0; i < 3; i++)
      await em.getConnection().execute(
        `insert into automation_skip (id, workspace_id, created_at, updated_at, automation_id, trigger_type, reason, message)
         values (?, ?, ?, ?, ?, 'webhook', 'inactive', 'old')`,
        [newId(old), suite.t.workspaceId, old, old, id],
      );
    expect((await skipsOf(suite.t, id)).total).toBe(4);
    expect(await pruneSkips(em, 14, 2)).toBeGreaterThanOrEqual(3);
    expect((await skipsOf(suite.t, id)).data.map((s: { triggerKey: string }) => s.triggerKey)).toEqual(['recent']);
  });
});
