/**
 * Engine version 3: actions whose whole effect is a CRM write (local-actions.pure.ts) run as local activities, so a
 * run of them costs the Temporal server no activity task round trips. The run's history holds a local-activity marker
 * per action and no scheduled activity, and each action still takes effect once. With CRM_RECORD_FIXTURE=1 the test
 * writes the run's history as the replay fixture `automation-execution-local-actions.history.json`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { historyToJSON, JSONToPayload, payloadToJSON, type JSONPayload } from '@temporalio/common/lib/proto-utils';
import { crmDataConverter } from '../../../platform/temporal/codec';
import { Note } from '../../notes/note.entity';
import { forkForWorkspace } from '../../../platform/orm/tenant';
import { ACTION_HANDLERS } from '../actions';
import { isLocalAction } from '../local-actions.pure';
import { action, chainGraph, createAutomation } from '../../../test/support/automation-engine';
import { engineSuite } from '../../../test/support/engine-suite';

const suite = engineSuite('Local actions');

it('the local actions are exactly the registry handlers of kind crm (the others call out or fail: regular activities)', () => {
  const kinds = Object.entries(ACTION_HANDLERS).map(([type, handler]) => [type, handler.kind === 'crm']);
  expect(kinds.map(([type]) => [type, isLocalAction(type)])).toEqual(kinds);
  expect(isLocalAction('create_note')).toBe(true);
  expect(isLocalAction('send_email')).toBe(false);
  expect(isLocalAction(undefined)).toBe(false);
});

it('a run of CRM-only actions records local-activity markers, schedules no activity task, and acts once', async () => {
  const graph = chainGraph({ triggerType: 'lead_created' }, [
    action('create_note', { noteContent: 'First for {{lead.title}}' }, 'first'),
    {
      id: 'check',
      type: 'condition',
      data: { logic: 'and', conditions: [{ field: 'lead.title', operator: 'contains', value: 'Local' }] },
    },
    action('create_note', { noteContent: 'Second' }, 'second'),
  ]);
  graph.edges[2]!.sourceHandle = 'true' as unknown as null;
  const automationId = await createAutomation(suite.t.http, graph);
  const lead = (await suite.t.http.post('/api/v1/leads', { title: 'Local lead' })).body.data as { _id: string };
  const done = await suite.h.triggerRun(suite.t.http, automationId, { entityType: 'lead', entityId: lead._id });
  expect(done.status).toBe('completed');

  const notes = await forkForWorkspace(suite.h.app.runtime.deps.orm.em, suite.t.workspaceId).find(
    Note,
    { leadRef: lead._id },
    { orderBy: { createdAt: 'asc' } },
  );
  expect(notes.map((n) => n.content)).toEqual(['First for Local lead', 'Second']);

  // The row says completed from the last local activity, before the workflow task that records it completes.
  const handle = suite.h.client.workflow.getHandle(done.workflowId);
  await handle.result();
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.filter((e) => e.activityTaskScheduledEventAttributes);
  expect(scheduled.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)).toEqual([]);
  // Two actions and finishExecution, each a local-activity marker.
  const markers = events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity');
  expect(markers.length).toBe(3);
  const steps = await suite.h.stepsOf(done._id);
  expect(steps.map((s) => [s.nodeId, s.status])).toEqual([
    ['trigger', 'completed'],
    ['first', 'completed'],
    ['check', 'completed'],
    ['second', 'completed'],
  ]);

  if (process.env.CRM_RECORD_FIXTURE === '1')
    writeFileSync(
      path.join(__dirname, '../../../test/fixtures/automation-execution-local-actions.history.json'),
      `${JSON.stringify(await plainPayloads(JSON.parse(historyToJSON(history))), null, 2)}\n`,
    );
});

/** The history's JSON with its payloads decrypted (the replay test runs with a key of its own). */
async function plainPayloads(json: unknown): Promise<unknown> {
  const codec = crmDataConverter(suite.h.app.config.temporalCodec.payloadKeys)?.payloadCodecs[0];
  const visit = async (value: unknown): Promise<unknown> => {
    if (Array.isArray(value)) return Promise.all(value.map(visit));
    if (!value || typeof value !== 'object') return value;
    const o = value as { metadata?: Record<string, string>; data?: string };
    if (codec && o.metadata?.encoding && typeof o.data === 'string') {
      const [plain] = await codec.decode([JSONToPayload(o as JSONPayload)]);
      return payloadToJSON(plain!);
    }
    const entries = await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await visit(v)] as const));
    return Object.fromEntries(entries);
  };
  return visit(json);
}
