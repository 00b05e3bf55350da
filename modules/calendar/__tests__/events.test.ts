import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import { factories } from '../../../test/support/factories';
import { eventsFor } from '../../../test/support/outbox';
import { expectCreated, expectError, expectOk, expectRejectedCreate } from '../../../test/support/expect';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const MISSING = '0123456789abcdef01234567';
const base = { title: 'Demo', start: '2030-06-01T10:00:00Z', end: '2030-06-01T11:00:00Z' };
const countEvents = async (): Promise<number> => (await t.http.get('/api/v1/events?limit=1')).body.total;
const attendees = (n: number) => Array.from({ length: n }, (_, i) => ({ email: `guest${i}@example.test` }));

describe('POST /api/v1/events', () => {
  it('creates an event with every field and emits event_created', async () => {
    const [company, person, lead, deal] = [
      await factories.company!(t.http),
      await factories.person!(t.http),
      await factories.lead!(t.http),
      await factories.deal!(t.http),
    ];
    const res = await t.http.post('/api/v1/events', {
      ...base,
      description: 'Product demo',
      type: 'meeting',
      location: 'Room 1',
      allDay: false,
      reminderMinutes: 15,
      attendees: [{ email: 'Ada@Example.test', name: 'Ada', status: 'accepted' }, { email: 'bob@example.test' }],
      companyId: company,
      personId: person,
      leadId: lead,
      dealId: deal,
    });
    const ev = expectCreated(res, {
      title: 'Demo',
      description: 'Product demo',
      type: 'meeting',
      start: '2030-06-01T10:00:00.000Z',
      end: '2030-06-01T11:00:00.000Z',
      allDay: false,
      location: 'Room 1',
      reminderMinutes: 15,
      companyId: company,
      personId: person,
      leadId: lead,
      dealId: deal,
      ownerId: t.userId,
      attendees: [
        { email: 'ada@example.test', name: 'Ada', status: 'accepted' },
        { email: 'bob@example.test', name: null, status: 'needs_action' },
      ],
    });
    const events = await eventsFor(app.runtime.deps.orm, ev._id);
    expect(events.map((e) => e.type)).toEqual(['event_created']);
    expect(events[0]!.payload.event.title).toBe('Demo');
    expect((await t.http.get(`/api/v1/events/${ev._id}`)).body.data).toEqual(ev);
  });

  it('accepts an all-day event with dates, start = end, 100 attendees and a 4-week reminder', async () => {
    const res = await t.http.post('/api/v1/events', {
      title: 'Offsite',
      start: '2030-07-01',
      end: '2030-07-01',
      allDay: true,
      attendees: attendees(100),
      reminderMinutes: 40_320,
    });
    expectCreated(res, { allDay: true, start: '2030-07-01T00:00:00.000Z', type: 'meeting' });
    expect(res.body.data.attendees).toHaveLength(100);
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['missing title', { start: base.start, end: base.end }, /title/],
    ['missing start', { title: 'x', end: base.end }, /start/],
    ['missing end', { title: 'x', start: base.start }, /end/],
    ['end before start', { ...base, end: '2030-06-01T09:59:59Z' }, /end: must not be before start/],
    ['start not ISO', { ...base, start: 'next monday' }, /start/],
    ['101 attendees', { ...base, attendees: attendees(101) }, /at most 100 attendees/],
    ['attendee without e-mail', { ...base, attendees: [{ name: 'x' }] }, /email/],
    ['attendee bad e-mail', { ...base, attendees: [{ email: 'nope' }] }, /email/],
    [
      'attendee status',
      { ...base, attendees: [{ email: 'a@b.test', status: 'maybe' }] },
      /status: must be one of needs_action, accepted, declined, tentative/,
    ],
    ['type', { ...base, type: 'party' }, /type: must be one of/],
    ['reminder over 4 weeks', { ...base, reminderMinutes: 40_321 }, /reminderMinutes: must be at most 40320/],
    ['negative reminder', { ...base, reminderMinutes: -1 }, /reminderMinutes/],
    ['allDay not boolean', { ...base, allDay: 'yes' }, /allDay/],
    ['unknown company', { ...base, companyId: MISSING }, /companyId: no company with id/],
    ['unknown person', { ...base, personId: MISSING }, /personId: no person with id/],
    ['unknown lead', { ...base, leadId: MISSING }, /leadId: no lead with id/],
    ['unknown deal', { ...base, dealId: MISSING }, /dealId: no deal with id/],
    ['owner not a user here', { ...base, ownerId: MISSING }, /ownerId: no user/],
    ['title over 500', { ...base, title: 't'.repeat(501) }, /title/],
  ];
  it.each(bad)('400 for %s, nothing written', async (_label, body, message) => {
    await expectRejectedCreate(t.http, '/api/v1/events', body, message, countEvents);
  });
});

describe('PUT and DELETE /api/v1/events/:id', () => {
  it('updates partially, checks end against the stored start, emits event_updated and event_deleted', async () => {
    const ev = (await t.http.post('/api/v1/events', base)).body.data;
    const moved = await t.http.put(`/api/v1/events/${ev._id}`, {
      end: '2030-06-01T12:00:00Z',
      location: 'Online',
      attendees: [{ email: 'c@d.test', status: 'tentative' }],
    });
    expectOk(moved, {
      title: 'Demo',
      end: '2030-06-01T12:00:00.000Z',
      location: 'Online',
      attendees: [{ email: 'c@d.test', name: null, status: 'tentative' }],
    });
    const early = await t.http.put(`/api/v1/events/${ev._id}`, { end: '2030-06-01T09:00:00Z' });
    expectError(early, 400, /end: must not be before start/);
    expect((await t.http.put(`/api/v1/events/${ev._id}`, { start: '2030-06-02T09:00:00Z' })).status).toBe(400);
    expect((await t.http.put(`/api/v1/events/${ev._id}`, { location: '' })).body.data.location).toBeNull();
    expect((await t.http.delete(`/api/v1/events/${ev._id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/events/${ev._id}`)).status).toBe(404);
    const types = (await eventsFor(app.runtime.deps.orm, ev._id)).map((e) => e.type);
    expect(types).toEqual(['event_created', 'event_updated', 'event_updated', 'event_deleted']);
  });
});

describe('GET /api/v1/events', () => {
  it('lists by start (earliest first) with from/to on start, ownerId and links', async () => {
    const mine = await app.tenant();
    const company = await factories.company!(mine.http);
    const mk = (start: string, extra: Record<string, unknown> = {}) =>
      mine.http
        .post('/api/v1/events', { title: start, start, end: start, ...extra })
        .then((r) => r.body.data._id as string);
    const may = await mk('2030-05-10T09:00:00Z', { companyId: company });
    const jan = await mk('2030-01-10T09:00:00Z');
    const mar = await mk('2030-03-10T09:00:00Z');
    const ids = async (qs: string) => (await mine.http.get(`/api/v1/events?${qs}`)).body.data.map((e: any) => e._id);
    expect(await ids('')).toEqual([jan, mar, may]);
    expect(await ids('from=2030-02-01')).toEqual([mar, may]);
    expect(await ids('to=2030-03-10')).toEqual([jan, mar]);
    expect(await ids('from=2030-02-01&to=2030-04-01')).toEqual([mar]);
    expect(await ids(`ownerId=${mine.userId}`)).toEqual([jan, mar, may]);
    expect(await ids(`ownerId=${MISSING}`)).toEqual([]);
    expect(await ids(`companyId=${company}`)).toEqual([may]);
    const page = await mine.http.get('/api/v1/events?limit=2&page=2');
    expect(page.body).toMatchObject({ page: 2, limit: 2, total: 3 });
    for (const qs of ['limit=101', 'from=soon', 'ownerId=me', 'page=0'])
      expect((await mine.http.get(`/api/v1/events?${qs}`)).status).toBe(400);
    expect((await mine.http.get('/api/v1/events?limit=100')).status).toBe(200);
  });
});
