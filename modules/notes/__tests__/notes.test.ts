import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { factories, makeCompany } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { unknownParentCases } from '../../../test/support/references';
import { expectCreated, expectError, expectRejectedCreate } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
let companyId: string;
withTestApp((s) => ({ app, t } = s));
/** Records of t: the structural rules (one reference, a slug with a record) are checked after the references exist. */
const real: Record<'person' | 'deal' | 'record', string> = { person: '', deal: '', record: '' };
beforeAll(async () => {
  companyId = (await makeCompany(t.http)).body.data._id;
  real.person = await factories.person!(t.http);
  real.deal = await factories.deal!(t.http);
  real.record = await factories['custom-object-record']!(t.http);
});

const MISSING = '0123456789abcdef01234567';
const countNotes = async (): Promise<number> => (await t.http.get('/api/v1/notes?limit=1')).body.total;
const timeline = async (path: string) => (await t.http.get(`${path}/activities`)).body.data as any[];

describe('POST /api/v1/notes', () => {
  it('creates the note and its linked activity (type note, noteRef) on the referenced record', async () => {
    const res = await t.http.post('/api/v1/notes', {
      content: '<p>Met <b>Ada</b> at the fair</p>',
      company: companyId,
    });
    const note = expectCreated(res, {
      content: '<p>Met <b>Ada</b> at the fair</p>',
      company: companyId,
      personRef: null,
      ownerId: t.userId,
    });
    const row = (await timeline(`/api/v1/companies/${companyId}`)).find((a) => a.noteRef === note._id);
    expect(row).toMatchObject({
      _id: note.activityId,
      type: 'note',
      summary: 'Met Ada at the fair',
      description: note.content,
      companyId,
      entityType: 'company',
      entityId: companyId,
      system: false,
    });
    expect((await eventsFor(app.runtime.deps.orm, note._id)).map((e) => e.type)).toEqual(['note_created']);
    expect((await t.http.get(`/api/v1/notes/${note._id}`)).body.data).toEqual(note);
  });

  it.each([
    ['personRef', () => factories.person!(t.http)],
    ['leadRef', () => factories.lead!(t.http)],
    ['dealRef', () => factories.deal!(t.http)],
  ])('links a note by %s and its activity to the same record', async (field, make) => {
    const id = await make();
    const note = (await t.http.post('/api/v1/notes', { content: 'hello', [field]: id })).body.data;
    expect(note[field]).toBe(id);
    const column = { personRef: 'personId', leadRef: 'leadId', dealRef: 'dealId' }[field]!;
    const rows = (await t.http.get(`/api/v1/activities?${column}=${id}`)).body.data;
    expect(rows).toEqual([expect.objectContaining({ noteRef: note._id, type: 'note', [column]: id })]);
  });

  it('accepts content of exactly 50,000 characters', async () => {
    const res = await t.http.post('/api/v1/notes', { content: 'x'.repeat(50_000), company: companyId });
    expect(res.status).toBe(201);
    expect(res.body.data.content).toHaveLength(50_000);
  });

  const bad: [string, () => Record<string, unknown>, RegExp][] = [
    ['missing content', () => ({ company: companyId }), /content/],
    ['blank content', () => ({ content: '   ', company: companyId }), /content: is required/],
    [
      'content over 50,000',
      () => ({ content: 'x'.repeat(50_001), company: companyId }),
      /content: must be at most 50000/,
    ],
    [
      'no reference',
      () => ({ content: 'x' }),
      /exactly one parent is required: one of company, personRef, leadRef, dealRef, customObjectRecord/,
    ],
    [
      'two references',
      () => ({ content: 'x', company: companyId, personRef: real.person }),
      /exactly one parent is allowed/,
    ],
    ...unknownParentCases({ content: 'x' }, 'assets', () => real.record),
    ['project is not a note reference', () => ({ content: 'x', project: MISSING }), /exactly one parent is required/],
    ['content not a string', () => ({ content: 5, company: companyId }), /content/],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/notes', body(), message, countNotes);
  });

  it('a record of another workspace is unknown (400)', async () => {
    const other = await app.tenant();
    const res = await t.http.post('/api/v1/notes', { content: 'x', company: await factories.company!(other.http) });
    expect(res.status).toBe(400);
  });
});

describe('PUT and DELETE /api/v1/notes/:id', () => {
  it('synchronises the linked activity on content change and on a move to another record', async () => {
    const note = (await t.http.post('/api/v1/notes', { content: 'first draft', company: companyId })).body.data;
    const put = await t.http.put(`/api/v1/notes/${note._id}`, { content: 'second <i>draft</i>' });
    expect(put.status).toBe(200);
    expect(put.body.data.content).toBe('second <i>draft</i>');
    let row = (await t.http.get(`/api/v1/activities/${note.activityId}`)).body.data;
    expect(row).toMatchObject({ summary: 'second draft', description: 'second <i>draft</i>', companyId });
    const person = await factories.person!(t.http);
    const moved = await t.http.put(`/api/v1/notes/${note._id}`, { personRef: person });
    expect(moved.body.data).toMatchObject({ personRef: person, company: null });
    row = (await t.http.get(`/api/v1/activities/${note.activityId}`)).body.data;
    expect(row).toMatchObject({ personId: person, companyId: null, entityType: 'person', entityId: person });
    const events = (await eventsFor(app.runtime.deps.orm, note._id)).map((e) => e.type);
    expect(events).toEqual(['note_created', 'note_updated', 'note_updated']);
    // Unchanged PUT writes nothing.
    await t.http.put(`/api/v1/notes/${note._id}`, { content: 'second <i>draft</i>' });
    expect((await eventsFor(app.runtime.deps.orm, note._id)).length).toBe(3);
  });

  it.each([
    ['clearing the only reference', { company: null }, /exactly one parent is required/],
    ['two references', () => ({ personRef: real.person, dealRef: real.deal }), /exactly one parent is allowed/],
    ['unknown reference', { leadRef: MISSING }, /leadRef: no lead/],
    ['blank content', { content: '' }, /content/],
  ])('400 for %s; note and activity unchanged', async (_label, body, message) => {
    const note = (await t.http.post('/api/v1/notes', { content: 'stable', company: companyId })).body.data;
    const activity = (await t.http.get(`/api/v1/activities/${note.activityId}`)).body.data;
    const res = await t.http.put(`/api/v1/notes/${note._id}`, typeof body === 'function' ? body() : body);
    expectError(res, 400, message);
    expect((await t.http.get(`/api/v1/notes/${note._id}`)).body.data).toEqual(note);
    expect((await t.http.get(`/api/v1/activities/${note.activityId}`)).body.data).toEqual(activity);
  });

  it('DELETE removes the note and its activity together', async () => {
    const note = (await t.http.post('/api/v1/notes', { content: 'to delete', company: companyId })).body.data;
    const del = await t.http.delete(`/api/v1/notes/${note._id}`);
    expect(del.body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/notes/${note._id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/activities/${note.activityId}`)).status).toBe(404);
    expect((await timeline(`/api/v1/companies/${companyId}`)).some((a) => a.noteRef === note._id)).toBe(false);
    expect((await eventsFor(app.runtime.deps.orm, note._id)).map((e) => e.type)).toEqual([
      'note_created',
      'note_deleted',
    ]);
    expect((await t.http.delete(`/api/v1/notes/${note._id}`)).status).toBe(404);
  });
});

describe('GET /api/v1/notes', () => {
  it('filters by reference, q and dates; view=summary gives an excerpt; newest first', async () => {
    const mine = await app.tenant();
    const company = (await makeCompany(mine.http)).body.data._id;
    const person = await factories.person!(mine.http);
    const a = (await mine.http.post('/api/v1/notes', { content: '<p>Budget is <b>50k</b></p>', company })).body.data;
    await new Promise((r) => setTimeout(r, 20));
    const mark = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const b = (await mine.http.post('/api/v1/notes', { content: 'Prefers e-mail', personRef: person })).body.data;
    const ids = async (qs: string) => (await mine.http.get(`/api/v1/notes?${qs}`)).body.data.map((n: any) => n._id);
    expect(await ids('')).toEqual([b._id, a._id]);
    expect(await ids(`company=${company}`)).toEqual([a._id]);
    expect(await ids(`personRef=${person}`)).toEqual([b._id]);
    expect(await ids(`leadRef=${MISSING}`)).toEqual([]);
    expect(await ids(`dealRef=${MISSING}`)).toEqual([]);
    expect(await ids('q=budget')).toEqual([a._id]);
    expect(await ids(`dateFrom=${encodeURIComponent(mark)}`)).toEqual([b._id]);
    expect(await ids(`dateTo=${encodeURIComponent(mark)}`)).toEqual([a._id]);
    expect(await ids(`createdAfter=${encodeURIComponent(mark)}`)).toEqual([b._id]);
    await mine.http.put(`/api/v1/notes/${a._id}`, { content: 'Budget is 60k' });
    expect(await ids(`updatedSince=${encodeURIComponent(mark)}`)).toEqual([b._id, a._id]);
    const summary = await mine.http.get(`/api/v1/notes?view=summary&company=${company}`);
    expect(summary.body.data[0]).toEqual(expect.objectContaining({ _id: a._id, excerpt: 'Budget is 60k', company }));
    expect(summary.body.data[0].content).toBeUndefined();
  });

  it.each([
    ['unknown=1', /unknown/],
    ['companyId=x', /companyId/],
    ['fields=content', /fields/],
    ['limit=101', /limit must be at most 100/],
    ['company=nope', /company/],
    ['dateTo=x', /dateTo/],
  ])('400 for ?%s (strict list)', async (qs, message) => {
    expectError(await t.http.get(`/api/v1/notes?${qs}`), 400, message);
  });

  it('accepts limit=100', async () => {
    expect((await t.http.get('/api/v1/notes?limit=100')).status).toBe(200);
  });
});
