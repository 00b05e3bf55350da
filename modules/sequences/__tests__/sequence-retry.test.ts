/**
 * Retrying a failed sequence enrollment (modules/sequences/retry.ts): a new enrollment begins at the failed step;
 * the step before it (a task) is not made again, the failed SMS is sent once more. The SMS step fails because its
 * template was deleted (a permanent error: it fails at once); the test restores the template row before retrying.
 */
import { CalendarEvent } from '../../calendar/calendar-event.entity';
import { SmsTemplate } from '../../messaging/sms-message.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { SequenceEnrollment } from '../sequence.entity';
import { newId } from '../../../platform/ids';
import type { Tenant } from '../../../test/support/app';
import { waitFor } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';
import { createSequence, line, sequenceEngineEnv } from '../../../test/support/sequences';
import { json, startHttp, type LocalHttp } from '../../../test/unit/messaging/local-http';

let other: Tenant;
let gateway: LocalHttp;
const sent: string[] = [];

beforeAll(async () => {
  gateway = await startHttp();
  gateway.respond((req, res) => {
    sent.push(JSON.parse(req.body || '{}').message as string);
    return json(200, { id: `sms-${sent.length}`, status: 'sent' })(req, res);
  });
});
const suite = engineSuite('Sequence retry', { env: () => sequenceEngineEnv(gateway) });
beforeAll(async () => {
  other = await suite.h.app.tenant('Sequence retry other');
});
afterAll(() => gateway?.close());

const row = (id: string) =>
  forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).findOne(
    SequenceEnrollment,
    { _id: id },
    { refresh: true },
  );
const untilStatus = (id: string, statuses: string[]) =>
  waitFor(
    async () => {
      const r = await row(id);
      return r && statuses.includes(r.status) ? r : null;
    },
    30_000,
    `enrollment ${id} to be ${statuses.join('/')}`,
  );
const tasksTitled = async (title: string) =>
  (await forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).find(CalendarEvent, { title })).length;

describe('retry a failed enrollment', () => {
  it('begins at the failed step: the task before it is not made again, the SMS goes out once', async () => {
    const title = `Task ${newId()}`;
    const tpl = await suite.t.http.post('/api/v1/sms-templates', { name: `Tpl ${newId()}`, message: 'Hello again' });
    expect(tpl.status).toBe(201);
    const templateId = tpl.body.data._id as string;
    const seqId = await createSequence(
      suite.t.http,
      line([
        { type: 'create_task', data: { taskTitle: title } },
        { type: 'send_sms', data: { smsMode: 'template', templateId, phoneField: 'mobile' } },
        { type: 'stop' },
      ]),
    );
    expect((await suite.t.http.delete(`/api/v1/sms-templates/${templateId}`)).status).toBe(200);
    const person = (
      await suite.t.http.post('/api/v1/people', {
        firstName: 'Ada',
        phones: [{ phone: `+45 ${20000000 + Math.floor(Math.random() * 9_000_000)}`, label: 'mobile' }],
      })
    ).body.data;
    const enrolled = await suite.t.http.post(`/api/v1/sequences/${seqId}/enroll`, {
      entityType: 'People',
      entityId: person._id,
    });
    expect(enrolled.status).toBe(201);
    const id = enrolled.body.data.enrollmentId as string;
    const failed = await untilStatus(id, ['exited', 'completed']);
    expect(failed).toMatchObject({ status: 'exited', exitReason: 'error' });
    expect(failed.error).toContain('s2: ');
    expect(await tasksTitled(title)).toBe(1);
    expect(sent).toEqual([]);

    // The template is back (same id, as the enrollment's snapshot names it).
    const em = forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId);
    em.create(SmsTemplate, {
      _id: templateId,
      workspaceId: suite.t.workspaceId,
      name: `Restored ${newId()}`,
      message: 'Hello again',
      category: null,
      createdBy: null,
    });
    await em.flush();
    const res = await suite.t.http.post(`/api/v1/sequences/enrollments/${id}/retry`, undefined, {
      headers: { 'Idempotency-Key': `seq-retry-${id}` },
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ retryOf: id, resumeAt: 's2', status: 'active', existing: false });
    const retryId = res.body.data.enrollmentId as string;
    // The same key answers the same retry.
    const again = await suite.t.http.post(`/api/v1/sequences/enrollments/${id}/retry`, undefined, {
      headers: { 'Idempotency-Key': `seq-retry-${id}` },
    });
    expect(again.body.data.enrollmentId).toBe(retryId);

    const done = await untilStatus(retryId, ['completed', 'exited']);
    expect(done.status).toBe('completed');
    expect(sent).toEqual(['Hello again']);
    expect(await tasksTitled(title)).toBe(1);
    const view = await suite.t.http.get(`/api/v1/sequences/enrollments/${retryId}`);
    expect(view.body.data.retryOf).toBe(id);
    expect(view.body.data.steps.map((s: { nodeId: string; status: string }) => [s.nodeId, s.status])).toEqual([
      ['s2', 'completed'],
      ['s3', 'completed'],
    ]);
    const orig = await suite.t.http.get(`/api/v1/sequences/enrollments/${id}`);
    expect(orig.body.data).toMatchObject({ status: 'exited', exitReason: 'error', retries: [retryId] });
    expect(orig.body.data.steps.map((s: { nodeId: string; status: string }) => [s.nodeId, s.status])).toEqual([
      ['start', 'completed'],
      ['s1', 'completed'],
      ['s2', 'failed'],
    ]);

    const notFailed = await suite.t.http.post(`/api/v1/sequences/enrollments/${retryId}/retry`);
    expect(notFailed.status).toBe(409);
    expect(notFailed.body.error).toMatch(/only enrollments that failed/);
    expect((await other.http.post(`/api/v1/sequences/enrollments/${id}/retry`)).status).toBe(404);
    expect((await suite.t.http.post(`/api/v1/sequences/enrollments/${newId()}/retry`)).status).toBe(404);
  }, 90_000);
});
