import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';

let app: TestApp;
let t: Tenant;
withTestApp((s) => ({ app, t } = s));

const newProject = async (http = t.http) =>
  (await http.post('/api/v1/projects', { title: 'Support retainer' })).body.data._id as string;
const newCard = async (body: Record<string, unknown>) => {
  const res = await t.http.post('/api/v1/clip-cards', { totalHours: 10, hourlyRate: 850, ...body });
  expect(res.status).toBe(201);
  return res.body.data as Record<string, any>;
};
const log = (projectId: string, body: Record<string, unknown>) =>
  t.http.post(`/api/v1/projects/${projectId}/time-entries`, body);
const card = async (id: string) => (await t.http.get(`/api/v1/clip-cards/${id}`)).body.data as Record<string, any>;

describe('clip cards', () => {
  it('creates, reads, updates and deletes a card', async () => {
    const project = await newProject();
    const created = await newCard({
      project,
      title: '10 h pack',
      allowOverdraft: true,
      overdraftRate: 1000,
      expiresAt: '2099-01-01',
      notes: 'Paid',
    });
    expect(created).toMatchObject({
      project,
      projectId: project,
      title: '10 h pack',
      totalHours: 10,
      usedHours: 0,
      remainingHours: 10,
      hourlyRate: 850,
      allowOverdraft: true,
      overdraftRate: 1000,
      expiresAt: '2099-01-01T00:00:00.000Z',
      notes: 'Paid',
      status: 'active',
    });
    expect(await card(created._id)).toEqual(created);
    const updated = await t.http.put(`/api/v1/clip-cards/${created._id}`, { totalHours: 20, notes: null });
    expect(updated.body.data).toMatchObject({ totalHours: 20, remainingHours: 20, notes: null });
    expect((await t.http.delete(`/api/v1/clip-cards/${created._id}`)).body).toEqual({ ok: true });
    expect((await t.http.get(`/api/v1/clip-cards/${created._id}`)).status).toBe(404);
  });

  it('refuses bad cards', async () => {
    const project = await newProject();
    const other = await app.tenant();
    const foreignProject = await newProject(other.http);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ project: undefined }, /project/],
      [{ project: 'abc' }, /project/],
      [{ project: '0123456789abcdef01234567' }, /project/],
      [{ project: foreignProject }, /project/],
      [{ totalHours: undefined }, /totalHours/],
      [{ totalHours: 0 }, /totalHours/],
      [{ totalHours: -2 }, /totalHours/],
      [{ hourlyRate: undefined }, /hourlyRate/],
      [{ hourlyRate: -1 }, /hourlyRate/],
      [{ hourlyRate: 'cheap' }, /hourlyRate/],
      [{ allowOverdraft: 'yes' }, /allowOverdraft/],
      [{ expiresAt: 'never' }, /expiresAt/],
      [{ title: 'x'.repeat(301) }, /title/],
    ];
    for (const [patch, field] of cases) {
      const res = await t.http.post('/api/v1/clip-cards', { project, totalHours: 10, hourlyRate: 850, ...patch });
      expect([patch, res.status, res.body.error]).toEqual([patch, 400, expect.stringMatching(field)]);
    }
    expect((await t.http.get(`/api/v1/clip-cards?projectId=${project}`)).body.total).toBe(0);
    const c = await newCard({ project });
    for (const body of [
      { status: 'depleted' },
      { status: 'expired' },
      { project: await newProject() },
      { totalHours: 0 },
    ]) {
      expect([body, (await t.http.put(`/api/v1/clip-cards/${c._id}`, body)).status]).toEqual([body, 400]);
    }
  });

  it('time entries consume hours (non-billable too) until the card is depleted', async () => {
    const project = await newProject();
    const c = await newCard({ project, totalHours: 3 });
    const first = await log(project, { hours: 1, minutes: 30 });
    expect(first.body.data.clipCardId).toBe(c._id);
    expect((await log(project, { hours: 1, billable: false })).body.data.clipCardId).toBe(c._id);
    expect(await card(c._id)).toMatchObject({ usedHours: 2.5, remainingHours: 0.5, status: 'active' });
    await log(project, { hours: 0.5 });
    expect(await card(c._id)).toMatchObject({ usedHours: 3, remainingHours: 0, status: 'depleted' });
    // A depleted card consumes nothing more; the entry is still logged.
    const after = await log(project, { hours: 1 });
    expect(after.status).toBe(201);
    expect(after.body.data.clipCardId).toBeNull();
    expect((await card(c._id)).usedHours).toBe(3);
  });

  it('concurrent entries add up exactly and spill onto the next card when one is used up', async () => {
    const project = await newProject();
    const small = await newCard({ project, totalHours: 2 });
    const big = await newCard({ project, totalHours: 100 });
    const results = await Promise.all(Array.from({ length: 12 }, () => log(project, { hours: 0.5 })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    expect(results.filter((r) => r.body.data.clipCardId === small._id)).toHaveLength(4);
    expect(results.filter((r) => r.body.data.clipCardId === big._id)).toHaveLength(8);
    expect(await card(small._id)).toMatchObject({ usedHours: 2, status: 'depleted' });
    expect((await card(big._id)).usedHours).toBe(4);
  });

  it('an overdraft card stays active past its hours; the oldest usable card is used first', async () => {
    const project = await newProject();
    const older = await newCard({ project, totalHours: 1, allowOverdraft: true, overdraftRate: 1200 });
    const newer = await newCard({ project, totalHours: 5 });
    await log(project, { hours: 2 });
    expect(await card(older._id)).toMatchObject({
      usedHours: 2,
      remainingHours: -1,
      overdraftHours: 1,
      status: 'active',
    });
    expect((await card(newer._id)).usedHours).toBe(0);
  });

  it('cancelled and expired cards consume nothing; statuses filter the list', async () => {
    const project = await newProject();
    const cancelled = await newCard({ project, totalHours: 5 });
    expect((await t.http.put(`/api/v1/clip-cards/${cancelled._id}`, { status: 'cancelled' })).body.data.status).toBe(
      'cancelled',
    );
    const expired = await newCard({ project, totalHours: 5, expiresAt: '2020-01-01' });
    expect(expired.status).toBe('expired');
    const depleted = await newCard({ project, totalHours: 1 });
    const active = await newCard({ project, totalHours: 5 });
    await log(project, { hours: 1 });
    expect((await card(depleted._id)).status).toBe('depleted');
    expect((await card(cancelled._id)).usedHours).toBe(0);
    expect((await card(expired._id)).usedHours).toBe(0);
    expect((await card(active._id)).usedHours).toBe(0);
    await log(project, { hours: 2 });
    expect((await card(active._id)).usedHours).toBe(2);

    const ids = async (q: string) =>
      (await t.http.get(`/api/v1/clip-cards?projectId=${project}&${q}`)).body.data.map((x: any) => x._id);
    expect(await ids('status=active')).toEqual([active._id]);
    expect(await ids('status=depleted')).toEqual([depleted._id]);
    expect(await ids('status=expired')).toEqual([expired._id]);
    expect(await ids('status=cancelled')).toEqual([cancelled._id]);
    expect((await ids('limit=2')).length).toBe(2);
    expect((await t.http.get(`/api/v1/clip-cards?projectId=${project}`)).body.total).toBe(4);
    expect((await t.http.get('/api/v1/clip-cards?status=open')).status).toBe(400);
    // Lifting the cancellation makes the card usable again.
    expect((await t.http.put(`/api/v1/clip-cards/${cancelled._id}`, { status: 'active' })).body.data.status).toBe(
      'active',
    );
  });
});
