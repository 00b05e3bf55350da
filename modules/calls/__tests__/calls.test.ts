import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { factories, makeCompany, makePerson } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectOk, expectRejectedCreate } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const MISSING = '0123456789abcdef01234567';
const RECORDING = 'https://recordings.example.com/secret-token-123.mp3';
const countCalls = async (): Promise<number> => (await t.http.get('/api/v1/calls?limit=1')).body.total;
const turns = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    speaker: i % 2 ? 'customer' : 'agent',
    text: `turn ${i}`,
    startMs: i * 1000,
    endMs: i * 1000 + 900,
  }));

describe('POST /api/v1/calls', () => {
  it('creates a call with the read shape and a call activity; emits call_created and call_completed', async () => {
    const company = (await makeCompany(t.http)).body.data._id;
    const person = await factories.person!(t.http);
    const res = await t.http.post('/api/v1/calls', {
      phone: '+45 12 34 56 78',
      subject: 'Renewal',
      direction: 'inbound',
      status: 'completed',
      duration: 312,
      startedAt: '2030-04-01T08:00:00Z',
      notes: 'Wants 3 seats',
      outcome: 'interested',
      companyId: company,
      personId: person,
      transcriptText: 'Hello…',
      languageCode: 'da-DK',
      conversation: turns(2),
      recordingUrl: RECORDING,
    });
    const call = expectCreated(res, {
      phone: '+45 12 34 56 78',
      subject: 'Renewal',
      direction: 'inbound',
      status: 'completed',
      duration: 312,
      startedAt: '2030-04-01T08:00:00.000Z',
      notes: 'Wants 3 seats',
      outcome: 'interested',
      companyId: company,
      personId: person,
      leadId: null,
      dealId: null,
      ownerId: t.userId,
      transcriptText: 'Hello…',
      transcriptSummary: null,
      transcriptStatus: 'completed',
      hasTranscript: true,
      conversation: turns(2),
      conversationTruncated: false,
      languageCode: 'da-DK',
      hasRecording: true,
      recordingPending: false,
    });
    // The recording link is never given to an API key: not in reads, lists, activities or events.
    expect(JSON.stringify(call)).not.toContain('secret-token');
    expect(JSON.stringify((await t.http.get(`/api/v1/calls/${call._id}`)).body)).not.toContain('secret-token');
    expect(JSON.stringify((await t.http.get('/api/v1/calls')).body)).not.toContain('secret-token');
    const events = await eventsFor(app.runtime.deps.orm, call._id);
    expect(events.map((e) => e.type)).toEqual(['call_created', 'call_completed']);
    expect(JSON.stringify(events)).not.toContain('secret-token');
    const activity = (await t.http.get(`/api/v1/activities/${call.activityId}`)).body.data;
    expect(activity).toMatchObject({
      type: 'call',
      callRef: call._id,
      summary: 'Renewal',
      description: 'Wants 3 seats',
      companyId: company,
      personId: person,
      entityType: 'person',
      date: call.startedAt,
    });
    expect(activity.metadata).toMatchObject({ direction: 'inbound', status: 'completed', duration: 312 });
    expect((await t.http.get(`/api/v1/people/${person}/activities`)).body.data.map((a: any) => a._id)).toContain(
      call.activityId,
    );
  });

  it('defaults: outbound, completed, 0 s, now, no transcript; status answered emits call_answered', async () => {
    const res = await t.http.post('/api/v1/calls', { phone: '12345678', status: 'answered' });
    expect(res.body.data).toMatchObject({
      direction: 'outbound',
      status: 'answered',
      duration: 0,
      transcriptStatus: 'none',
      hasTranscript: false,
      hasRecording: false,
      conversation: [],
    });
    expect((await eventsFor(app.runtime.deps.orm, res.body.data._id)).map((e) => e.type)).toEqual([
      'call_created',
      'call_answered',
    ]);
    const activity = (await t.http.get(`/api/v1/activities/${res.body.data.activityId}`)).body.data;
    expect(activity.summary).toBe('Outbound call to 12345678');
    const missed = await t.http.post('/api/v1/calls', { phone: '12345678', status: 'missed' });
    expect((await eventsFor(app.runtime.deps.orm, missed.body.data._id)).map((e) => e.type)).toEqual(['call_created']);
  });

  it('a repeated externalId answers the stored call with 200 and writes nothing', async () => {
    const first = await t.http.post('/api/v1/calls', { phone: '11112222', externalId: 'pbx-42' });
    expect(first.status).toBe(201);
    const before = await countCalls();
    const again = await t.http.post('/api/v1/calls', { phone: '99998888', externalId: 'pbx-42' });
    expect(again.status).toBe(200);
    expect(again.body.data._id).toBe(first.body.data._id);
    expect(await countCalls()).toBe(before);
  });

  it('accepts 2000 conversation turns; a list read carries 50 and says it is truncated', async () => {
    const res = await t.http.post('/api/v1/calls', {
      phone: '55554444',
      subject: 'long-conversation',
      conversation: turns(2000),
    });
    expect(res.status).toBe(201);
    const full = (await t.http.get(`/api/v1/calls/${res.body.data._id}`)).body.data;
    expect(full.conversation).toHaveLength(2000);
    expect(full.conversationTruncated).toBe(false);
    const listed = (await t.http.get('/api/v1/calls?q=long-conversation')).body.data[0];
    expect(listed.conversation).toHaveLength(50);
    expect(listed.conversationTruncated).toBe(true);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing phone', { subject: 'x' }, /phone/],
    ['phone over 50', { phone: '1'.repeat(51) }, /phone: must be at most 50/],
    ['direction sideways', { phone: '1', direction: 'sideways' }, /direction: must be one of inbound, outbound/],
    ['status unknown', { phone: '1', status: 'hung' }, /status: must be one of/],
    ['negative duration', { phone: '1', duration: -1 }, /duration: must be at least 0/],
    ['fractional duration', { phone: '1', duration: 1.5 }, /duration/],
    ['duration over 7 days', { phone: '1', duration: 604_801 }, /duration: must be at most 604800/],
    ['startedAt not ISO', { phone: '1', startedAt: 'now' }, /startedAt/],
    ['unknown company', { phone: '1', companyId: MISSING }, /companyId: no company with id/],
    ['unknown person', { phone: '1', personId: MISSING }, /personId: no person with id/],
    ['unknown lead', { phone: '1', leadId: MISSING }, /leadId: no lead with id/],
    ['unknown deal', { phone: '1', dealId: MISSING }, /dealId: no deal with id/],
    ['owner not a user here', { phone: '1', ownerId: MISSING }, /ownerId: no user/],
    ['2001 turns', { phone: '1', conversation: turns(2001) }, /at most 2000 turns/],
    ['turn without speaker', { phone: '1', conversation: [{ text: 'x' }] }, /speaker/],
    [
      'turn text over 5000',
      { phone: '1', conversation: [{ speaker: 'a', text: 'x'.repeat(5001) }] },
      /text: must be at most 5000/,
    ],
    [
      'turn ends before it starts',
      { phone: '1', conversation: [{ speaker: 'a', text: 'x', startMs: 10, endMs: 5 }] },
      /endMs must not be before startMs/,
    ],
    [
      'recording over http',
      { phone: '1', recordingUrl: 'http://x.example/a.mp3' },
      /recordingUrl: must be an https URL/,
    ],
    ['language tag', { phone: '1', languageCode: 'not a tag' }, /languageCode/],
    ['transcriptStatus unknown', { phone: '1', transcriptStatus: 'maybe' }, /transcriptStatus/],
    ['externalId over 200', { phone: '1', externalId: 'e'.repeat(201) }, /externalId/],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/calls', body, message, countCalls);
  });
});

describe('PUT and DELETE /api/v1/calls/:id', () => {
  it('keeps the activity in sync; a status change to completed emits call_completed once', async () => {
    const lead = await factories.lead!(t.http);
    const call = (
      await t.http.post('/api/v1/calls', {
        phone: '+4587654321',
        status: 'ringing',
        leadId: lead,
        recordingPending: true,
      })
    ).body.data;
    expect(call.recordingPending).toBe(true);
    const res = await t.http.put(`/api/v1/calls/${call._id}`, {
      status: 'completed',
      duration: 90,
      notes: 'Booked a demo',
      subject: 'Demo call',
      recordingUrl: RECORDING,
    });
    expectOk(res, {
      status: 'completed',
      duration: 90,
      hasRecording: true,
      recordingPending: false,
    });
    expect(JSON.stringify(res.body)).not.toContain('secret-token');
    const activity = (await t.http.get(`/api/v1/activities/${call.activityId}`)).body.data;
    expect(activity).toMatchObject({
      summary: 'Demo call',
      description: 'Booked a demo',
      leadId: lead,
      entityType: 'lead',
    });
    expect(activity.metadata).toMatchObject({ status: 'completed', duration: 90 });
    await t.http.put(`/api/v1/calls/${call._id}`, { notes: 'Booked a demo for Friday' });
    const events = await eventsFor(app.runtime.deps.orm, call._id);
    expect(events.map((e) => e.type)).toEqual(['call_created', 'call_updated', 'call_completed', 'call_updated']);
    expect(events[1]!.payload.changes.recordingUrl).toBeUndefined();
    expect(JSON.stringify(events)).not.toContain('secret-token');
  });

  it('a transcript arriving later completes transcription', async () => {
    const call = (await t.http.post('/api/v1/calls', { phone: '33334444' })).body.data;
    const res = await t.http.put(`/api/v1/calls/${call._id}`, {
      transcriptText: 'Hi there',
      transcriptSummary: 'Greeting',
    });
    expect(res.body.data).toMatchObject({
      transcriptStatus: 'completed',
      hasTranscript: true,
      transcriptSummary: 'Greeting',
    });
  });

  it('400 on bad update, call unchanged; DELETE removes the call and its activity', async () => {
    const call = (await t.http.post('/api/v1/calls', { phone: '22223333' })).body.data;
    for (const body of [{ duration: -5 }, { status: 'open' }, { companyId: MISSING }, { phone: '' }]) {
      expect((await t.http.put(`/api/v1/calls/${call._id}`, body)).status).toBe(400);
    }
    expect((await t.http.get(`/api/v1/calls/${call._id}`)).body.data).toEqual(call);
    expect((await t.http.delete(`/api/v1/calls/${call._id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/calls/${call._id}`)).status).toBe(404);
    expect((await t.http.get(`/api/v1/activities/${call.activityId}`)).status).toBe(404);
    expect((await eventsFor(app.runtime.deps.orm, call._id)).map((e) => e.type)).toEqual([
      'call_created',
      'call_completed',
      'call_deleted',
    ]);
  });
});

describe('GET /api/v1/calls', () => {
  it('filters by direction, status, links, owner, q and startedAt window; latest first', async () => {
    const mine = await app.tenant();
    const person = (await makePerson(mine.http)).body.data._id;
    const a = (
      await mine.http.post('/api/v1/calls', {
        phone: '10000001',
        direction: 'inbound',
        status: 'missed',
        startedAt: '2030-01-05T10:00:00Z',
        personId: person,
      })
    ).body.data;
    const b = (
      await mine.http.post('/api/v1/calls', { phone: '10000002', subject: 'Quote', startedAt: '2030-02-05T10:00:00Z' })
    ).body.data;
    const ids = async (qs: string) => (await mine.http.get(`/api/v1/calls?${qs}`)).body.data.map((c: any) => c._id);
    expect(await ids('')).toEqual([b._id, a._id]);
    expect(await ids('direction=inbound')).toEqual([a._id]);
    expect(await ids('status=completed')).toEqual([b._id]);
    expect(await ids(`personId=${person}`)).toEqual([a._id]);
    expect(await ids(`ownerId=${mine.userId}`)).toEqual([b._id, a._id]);
    expect(await ids('q=quote')).toEqual([b._id]);
    expect(await ids('q=10000001')).toEqual([a._id]);
    expect(await ids('dateFrom=2030-02-01')).toEqual([b._id]);
    expect(await ids('dateTo=2030-01-05')).toEqual([a._id]);
    for (const qs of ['limit=101', 'direction=up', 'status=x', 'personId=x'])
      expect((await mine.http.get(`/api/v1/calls?${qs}`)).status).toBe(400);
    expect((await mine.http.get('/api/v1/calls?limit=100')).status).toBe(200);
  });
});
