import { Activity } from '../../timeline/activity.entity';
import { CustomFieldDefinition } from '../../custom-fields/custom-field-definition.entity';
import { Deal } from '../../deals/deal.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { createRecord } from '../../../platform/shared/records';
import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { makeCompany, makeLead, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectOk, expectRejectedCreate } from '../../../test/support/expect';
import { expectDateFilters, itChecksListQueries } from '../../../test/support/list-queries';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const countLeads = async (tenant = t): Promise<number> => (await tenant.http.get('/api/v1/leads?limit=1')).body.total;
const ctxOf = (tenant: Tenant) => ({
  em: forkForWorkspace(app.runtime.deps.orm.em, tenant.workspaceId),
  actor: {
    workspaceId: tenant.workspaceId,
    userId: tenant.userId,
    role: 'owner' as const,
    scopes: ['read' as const, 'write' as const],
  },
});

describe('POST /api/v1/leads', () => {
  it('accepts customFields as name/value pairs and stores them as a map', async () => {
    const res = await t.http.post('/api/v1/leads', {
      title: 'Pairs',
      customFields: [
        { name: 'tier', value: 'gold' },
        { name: 'seats', value: 3 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.data.customFields).toEqual({ tier: 'gold', seats: 3 });
  });

  it('creates a lead with every field: 201 { data }, defaults, events and a feed row', async () => {
    const company = (await makeCompany(t.http)).body.data;
    const person = (await makePerson(t.http)).body.data;
    const res = await t.http.post('/api/v1/leads', {
      title: '  Website enquiry ',
      email: 'Lead@Example.TEST',
      phone: '+45 1234',
      source: 'web',
      notes: 'Wants a demo',
      value: 12500.5,
      companyRef: company._id,
      personRef: person._id,
      customFields: { budget: 'big', drop: null },
      tags: ['hot', 'hot', 'q3'],
    });
    const lead = expectCreated(res, {
      title: 'Website enquiry',
      email: 'lead@example.test',
      phone: '+45 1234',
      status: 'new',
      source: 'web',
      notes: 'Wants a demo',
      value: 12500.5,
      companyRef: company._id,
      personRef: person._id,
      customFields: { budget: 'big' },
      tags: ['hot', 'q3'],
      ownerId: t.userId,
      score: 0,
      scoreBreakdown: [],
    });
    expect(lead._id).toMatch(/^[0-9a-f]{24}$/);
    const events = await eventsFor(app.runtime.deps.orm, lead._id);
    expect(events.map((e) => e.type)).toEqual(['lead_created', 'tag_added', 'tag_added']);
    expect(events[0]!.payload.lead.title).toBe('Website enquiry');
    const feed = await t.http.get(`/api/v1/leads/${lead._id}/activity-feed`);
    expect(feed.body.data).toHaveLength(1);
    expect(feed.body.data[0]).toMatchObject({
      type: 'record_created',
      system: true,
      leadId: lead._id,
      companyId: company._id,
      personId: person._id,
    });
  });

  it('ignores score, scoreBreakdown and other read-only fields sent by the client', async () => {
    const res = await makeLead(t.http, {
      score: 99,
      scoreBreakdown: [{ ruleId: 'x', points: 99 }],
      _id: 'aaaaaaaaaaaaaaaaaaaaaaaa',
      workspaceId: 'x',
      createdAt: '2000-01-01',
    });
    expectCreated(res, { score: 0, scoreBreakdown: [] });
    expect(res.body.data._id).not.toBe('aaaaaaaaaaaaaaaaaaaaaaaa');
    expect(res.body.data.createdAt).not.toMatch(/^2000/);
  });

  it('takes status and an ownerId of the workspace', async () => {
    const res = await makeLead(t.http, { status: 'qualified', ownerId: t.userId });
    expect(res.body.data).toMatchObject({ status: 'qualified', ownerId: t.userId });
  });

  const missing = '0123456789abcdef01234567';
  const bad: [string, Record<string, unknown> | unknown[], RegExp][] = [
    ['missing title', { email: 'a@b.dk' }, /title/],
    ['blank title', { title: '   ' }, /title/],
    ['title over 500', { title: 'x'.repeat(501) }, /title.*500/],
    ['title as number', { title: 7 }, /title/],
    ['invalid e-mail', { title: 'a', email: 'nope' }, /email/],
    ['phone over 50', { title: 'a', phone: '1'.repeat(51) }, /phone.*50/],
    ['status over 50', { title: 'a', status: 's'.repeat(51) }, /status.*50/],
    ['empty status', { title: 'a', status: '' }, /status/],
    ['source over 100', { title: 'a', source: 's'.repeat(101) }, /source.*100/],
    ['notes over 20000', { title: 'a', notes: 'n'.repeat(20_001) }, /notes.*20000/],
    ['negative value', { title: 'a', value: -1 }, /value/],
    ['value as string', { title: 'a', value: '100' }, /value/],
    ['malformed companyRef', { title: 'a', companyRef: 'abc' }, /companyRef/],
    ['unknown companyRef', { title: 'a', companyRef: missing }, /companyRef: no company/],
    ['unknown personRef', { title: 'a', personRef: missing }, /personRef: no person/],
    ['unknown ownerId', { title: 'a', ownerId: missing }, /ownerId: no user/],
    ['tags not an array', { title: 'a', tags: 'hot' }, /tags/],
    ['101 tags', { title: 'a', tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }, /tags/],
    ['customFields as an array of non-pairs', { title: 'a', customFields: [1, 2] }, /customFields/],
    ['customFields with an object value', { title: 'a', customFields: { x: { y: 1 } } }, /customFields/],
    ['body is an array', [{ title: 'a' }], /body/],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/leads', body, message, countLeads);
  });

  it('accepts strings exactly at their limit', async () => {
    const res = await makeLead(t.http, {
      title: 't'.repeat(500),
      status: 's'.repeat(50),
      source: 'o'.repeat(100),
      phone: '1'.repeat(50),
      notes: 'n'.repeat(20_000),
      value: 0,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.title).toHaveLength(500);
  });

  it("refuses references to another workspace's company, person or user", async () => {
    const other = await app.tenant();
    const company = (await makeCompany(other.http)).body.data._id;
    const person = (await makePerson(other.http)).body.data._id;
    expect((await makeLead(t.http, { companyRef: company })).status).toBe(400);
    expect((await makeLead(t.http, { personRef: person })).status).toBe(400);
    expect((await makeLead(t.http, { ownerId: other.userId })).status).toBe(400);
  });

  it('validates custom field values against lead definitions (POST and PUT)', async () => {
    const mine = await app.tenant();
    const ctx = ctxOf(mine);
    ctx.em.persist(
      createRecord(ctx, CustomFieldDefinition, {
        entityType: 'lead',
        key: 'seats',
        label: 'Seats',
        type: 'number',
        options: [],
      }),
    );
    ctx.em.persist(
      createRecord(ctx, CustomFieldDefinition, {
        entityType: 'lead',
        key: 'tier',
        label: 'Tier',
        type: 'select',
        options: [{ value: 'gold', label: 'Gold' }],
      }),
    );
    await ctx.em.flush();
    const wrong = await makeLead(mine.http, { customFields: { seats: 'many' } });
    expectError(wrong, 400, /customFields\.seats: must be a number/);
    expect((await makeLead(mine.http, { customFields: { tier: 'silver' } })).body.error).toMatch(/customFields\.tier/);
    const ok = await makeLead(mine.http, { customFields: { seats: 10, tier: 'gold', free: 'form' } });
    expect(ok.status).toBe(201);
    const put = await mine.http.put(`/api/v1/leads/${ok.body.data._id}`, { customFields: { seats: true } });
    expectError(put, 400, /customFields\.seats/);
    expect((await mine.http.get(`/api/v1/leads/${ok.body.data._id}`)).body.data.customFields).toEqual({
      seats: 10,
      tier: 'gold',
      free: 'form',
    });
  });

  it('preview (body flag or query) returns current/proposed/diff and writes nothing', async () => {
    const before = await countLeads();
    const viaBody = await t.http.post('/api/v1/leads', { title: 'Preview lead', source: 'fair', preview: true });
    expectOk(viaBody, {
      preview: true,
      current: null,
      proposed: { title: 'Preview lead', source: 'fair', status: 'new', score: 0 },
    });
    expect(viaBody.body.data.diff.title).toEqual({ from: null, to: 'Preview lead' });
    const viaQuery = await t.http.post('/api/v1/leads?preview=true', { title: 'Preview lead' });
    expect(viaQuery.body.data.preview).toBe(true);
    expect(await countLeads()).toBe(before);
    expect((await eventsFor(app.runtime.deps.orm, viaBody.body.data.proposed._id)).length).toBe(0);
  });
});

describe('GET /api/v1/leads/:id', () => {
  it('returns the lead with score and scoreBreakdown, honours fields=, 404s unknown and malformed ids', async () => {
    const id = (await makeLead(t.http, { source: 'ads' })).body.data._id;
    const full = await t.http.get(`/api/v1/leads/${id}`);
    expectOk(full, { _id: id, source: 'ads', score: 0, scoreBreakdown: [] });
    const slim = await t.http.get(`/api/v1/leads/${id}?fields=title,score`);
    expect(Object.keys(slim.body.data).sort()).toEqual(['_id', 'score', 'title']);
    expect((await t.http.get(`/api/v1/leads/${id}?fields=title,secret`)).status).toBe(400);
    for (const other of ['0123456789abcdef01234567', 'not-an-id', `${id}x`]) {
      expectError(await t.http.get(`/api/v1/leads/${other}`), 404, /lead not found/);
    }
  });
});

describe('GET /api/v1/leads', () => {
  it('filters by status, source, ownerId, search and its alias q; paginates; view=summary', async () => {
    const mine = await app.tenant();
    await makeLead(mine.http, { title: 'Alpha roofing', status: 'new', source: 'web', email: 'alpha@roof.test' });
    await makeLead(mine.http, { title: 'Beta windows', status: 'qualified', source: 'web' });
    await makeLead(mine.http, { title: 'Gamma roofing', status: 'qualified', source: 'referral', phone: '+45 777' });
    const titles = async (qs: string) =>
      (await mine.http.get(`/api/v1/leads?${qs}`)).body.data.map((l: any) => l.title).sort();
    expect(await titles('status=qualified')).toEqual(['Beta windows', 'Gamma roofing']);
    expect(await titles('source=web')).toEqual(['Alpha roofing', 'Beta windows']);
    expect(await titles('status=qualified&source=web')).toEqual(['Beta windows']);
    expect(await titles('search=roofing')).toEqual(['Alpha roofing', 'Gamma roofing']);
    expect(await titles('q=ROOF.TEST')).toEqual(['Alpha roofing']);
    expect(await titles('search=777')).toEqual(['Gamma roofing']);
    expect(await titles('search=%25')).toEqual([]);
    expect(await titles(`ownerId=${mine.userId}`)).toHaveLength(3);
    expect(await titles('ownerId=0123456789abcdef01234567')).toEqual([]);
    const page2 = await mine.http.get('/api/v1/leads?limit=2&page=2');
    expect(page2.body).toMatchObject({ page: 2, limit: 2, total: 3 });
    expect(page2.body.data.map((l: any) => l.title)).toEqual(['Alpha roofing']); // newest first
    const summary = await mine.http.get('/api/v1/leads?view=summary&limit=1');
    expect(Object.keys(summary.body.data[0]).sort()).toEqual(
      ['_id', 'email', 'ownerId', 'phone', 'score', 'source', 'status', 'title', 'updatedAt', 'value'].sort(),
    );
    const fields = await mine.http.get('/api/v1/leads?fields=title&limit=1');
    expect(Object.keys(fields.body.data[0]).sort()).toEqual(['_id', 'title']);
  });

  it('filters by updatedSince (oldest change first) and dateFrom/dateTo with their aliases', async () => {
    await expectDateFilters(app, '/api/v1/leads', 'title', makeLead, { source: 'later' });
  });

  const badQueries: [string, RegExp][] = [
    ['dateTo=2024-13-45', /dateTo/],
    [`search=${'x'.repeat(201)}`, /search/],
    [`status=${'x'.repeat(51)}`, /status/],
    ['ownerId=abc', /ownerId/],
  ];
  itChecksListQueries(() => t.http, '/api/v1/leads', badQueries, 500, 'leads');
});

describe('PUT /api/v1/leads/:id', () => {
  it('updates only given keys, merges customFields, logs to the feed and emits lead_updated { lead, changes }', async () => {
    const lead = (
      await makeLead(t.http, { title: 'Merge lead', source: 'web', customFields: { a: 1, b: 2 }, tags: ['x'] })
    ).body.data;
    const res = await t.http.put(`/api/v1/leads/${lead._id}`, {
      status: 'contacted',
      customFields: { b: 3, c: 'new', a: null },
      tags: ['y'],
    });
    expectOk(res, {
      title: 'Merge lead',
      source: 'web',
      status: 'contacted',
      customFields: { b: 3, c: 'new' },
      tags: ['y'],
    });
    const feed = await t.http.get(`/api/v1/leads/${lead._id}/activity-feed`);
    expect(feed.body.data[0]).toMatchObject({ type: 'record_updated', system: true });
    expect(feed.body.data[0].metadata.changes.status).toEqual({ from: 'new', to: 'contacted' });
    const events = await eventsFor(app.runtime.deps.orm, lead._id);
    expect(events.map((e) => e.type)).toEqual([
      'lead_created',
      'tag_added',
      'lead_updated',
      'tag_added',
      'tag_removed',
    ]);
    expect(events[2]!.payload.changes.status).toEqual({ from: 'new', to: 'contacted' });
    expect(events[2]!.payload.lead.status).toBe('contacted');
    expect((await t.http.get(`/api/v1/leads/${lead._id}/activities`)).body.total).toBe(0);
  });

  it('clears optional fields and references with null or "", and an unchanged PUT emits nothing', async () => {
    const company = (await makeCompany(t.http)).body.data._id;
    const lead = (await makeLead(t.http, { email: 'a@b.dk', companyRef: company, value: 10 })).body.data;
    const res = await t.http.put(`/api/v1/leads/${lead._id}`, { email: '', companyRef: null, value: null });
    expect(res.body.data).toMatchObject({ email: null, companyRef: null, value: null });
    const before = (await eventsFor(app.runtime.deps.orm, lead._id)).length;
    await t.http.put(`/api/v1/leads/${lead._id}`, { email: null, score: 50 });
    expect((await eventsFor(app.runtime.deps.orm, lead._id)).length).toBe(before);
    expect((await t.http.get(`/api/v1/leads/${lead._id}`)).body.data.score).toBe(0);
  });

  it('preview shows the diff and changes nothing', async () => {
    const lead = (await makeLead(t.http, { title: 'Before' })).body.data;
    const res = await t.http.put(`/api/v1/leads/${lead._id}?preview=true`, { title: 'After' });
    expect(res.body.data).toMatchObject({
      preview: true,
      current: { title: 'Before' },
      proposed: { title: 'After' },
      diff: { title: { from: 'Before', to: 'After' } },
    });
    const body = await t.http.put(`/api/v1/leads/${lead._id}`, { title: 'After', preview: true });
    expect(body.body.data.preview).toBe(true);
    expect((await t.http.get(`/api/v1/leads/${lead._id}`)).body.data.title).toBe('Before');
    expect((await eventsFor(app.runtime.deps.orm, lead._id)).map((e) => e.type)).toEqual(['lead_created']);
  });

  it('rejects bad input with 400 and leaves the lead unchanged', async () => {
    const lead = (await makeLead(t.http, { title: 'Stable' })).body.data;
    const bodies = [
      { title: '' },
      { value: 'lots' },
      { email: 'x' },
      { personRef: '0123456789abcdef01234567' },
      { ownerId: '0123456789abcdef01234567' },
      { status: null },
      { title: 'x'.repeat(501) },
    ];
    for (const body of bodies) expect((await t.http.put(`/api/v1/leads/${lead._id}`, body)).status).toBe(400);
    expect((await t.http.get(`/api/v1/leads/${lead._id}`)).body.data).toEqual(lead);
    expect((await t.http.put('/api/v1/leads/0123456789abcdef01234567', { title: 'x' })).status).toBe(404);
  });
});

describe('DELETE /api/v1/leads/:id and timelines', () => {
  it('deletes, emits lead_deleted, unlinks deals, then 404s', async () => {
    const lead = (await makeLead(t.http)).body.data;
    const ctx = ctxOf(t);
    const deal = createRecord(ctx, Deal, { title: 'Linked deal', leadRef: lead._id });
    await ctx.em.persist(deal).flush();
    const del = await t.http.delete(`/api/v1/leads/${lead._id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/leads/${lead._id}`)).status).toBe(404);
    expect((await t.http.delete(`/api/v1/leads/${lead._id}`)).status).toBe(404);
    expect((await eventsFor(app.runtime.deps.orm, lead._id)).map((e) => e.type)).toContain('lead_deleted');
    const reloaded = await ctxOf(t).em.findOneOrFail(Deal, { _id: deal._id });
    expect(reloaded.leadRef).toBeNull();
  });

  it('activities lists non-system rows linked to the lead; the feed adds history; unknown lead 404s', async () => {
    const lead = (await makeLead(t.http)).body.data;
    const ctx = ctxOf(t);
    await ctx.em
      .persist(
        createRecord(ctx, Activity, {
          type: 'call',
          system: false,
          summary: 'Called',
          leadId: lead._id,
          date: new Date(),
          metadata: {},
        }),
      )
      .flush();
    const acts = await t.http.get(`/api/v1/leads/${lead._id}/activities`);
    expect(acts.body).toMatchObject({ page: 1, limit: 20, total: 1 });
    expect(acts.body.data[0]).toMatchObject({ type: 'call', summary: 'Called' });
    const feed = await t.http.get(`/api/v1/leads/${lead._id}/activity-feed`);
    expect(feed.body.data.map((a: any) => a.type)).toEqual(['call', 'record_created']);
    expect((await t.http.get(`/api/v1/leads/${lead._id}/activity-feed?limit=101`)).status).toBe(400);
    for (const sub of ['activities', 'activity-feed'])
      expect((await t.http.get(`/api/v1/leads/0123456789abcdef01234567/${sub}`)).status).toBe(404);
  });

  it('a read-only key can list but not write leads', async () => {
    const reader = await app.key(t.workspaceId, ['read']);
    expect((await reader.get('/api/v1/leads')).status).toBe(200);
    expect((await reader.post('/api/v1/leads', { title: 'x' })).status).toBe(403);
  });
});
