import { ApplicationFailure } from '@temporalio/activity';
import { resolveActionConfig } from '../actions';
import { emailRecipients, messageLinks, phoneOf } from '../actions/recipients';
import { toFailure } from '../actions/step-runner';
import { PermanentActionError, triggerRecord } from '../actions/types';
import { DomainError } from '../../../platform/errors';
import { topology } from '../topology.pure';
import { delayMsOf, failureMessage, mergeContext, walkFrom } from '../engine/walk.pure';
import { FAILURE_TYPES } from '../engine/types.pure';
import {
  automationScheduleId,
  executionWorkflowId,
  parseExecutionWorkflowId,
  scheduledTimeOfTick,
  scheduleTickWorkflowId,
} from '../automation-ids.pure';

const WS = '0123456789abcdef01234567';
const ID = '89abcdef0123456789abcdef';

describe('workflow ids', () => {
  it('are readable, deterministic and parse back', () => {
    expect(executionWorkflowId(WS, ID)).toBe(`automation-execution:${WS}:${ID}`);
    expect(parseExecutionWorkflowId(executionWorkflowId(WS, ID))).toEqual({ workspaceId: WS, executionId: ID });
    expect(parseExecutionWorkflowId('automation-execution:x:y')).toBeNull();
    expect(automationScheduleId(WS, ID)).toBe(`automation-schedule:${WS}:${ID}`);
    expect(scheduledTimeOfTick(`${scheduleTickWorkflowId(WS, ID)}-2030-01-02T03:04:05Z`)).toBe('2030-01-02T03:04:05Z');
    expect(scheduledTimeOfTick(scheduleTickWorkflowId(WS, ID))).toBeNull();
  });
});

describe('walkFrom', () => {
  const graph = {
    nodes: [
      { id: 't', type: 'trigger' },
      { id: 'l', type: 'lookup' },
      { id: 'a', type: 'action' },
      { id: 'b', type: 'action' },
      { id: 'c', type: 'action' },
    ],
    edges: [
      { id: 'e1', source: 't', target: 'l' },
      { id: 'e2', source: 'l', target: 'a', sourceHandle: 'found' },
      { id: 'e3', source: 'l', target: 'b', sourceHandle: 'empty' },
      { id: 'e4', source: 'a', target: 'c' },
      { id: 'e5', source: 't', target: 'c' },
    ],
  };

  it('from the trigger, following the handles each node leaves through', async () => {
    const { ran } = await walkFrom(topology(graph), null, async (n) => ({ handle: n.id === 'l' ? 'found' : null }));
    expect(ran).toEqual(['t', 'l', 'a', 'c']);
  });

  it('a fan-out child starts behind the lookup: only what the found handle reaches', async () => {
    const { ran } = await walkFrom(topology(graph), { nodeId: 'l', handle: 'found' }, async () => ({ handle: null }));
    expect(ran).toEqual(['a', 'c']);
  });

  it('a handle no edge carries stops that branch only; stop ends the walk', async () => {
    expect(
      (await walkFrom(topology(graph), null, async (n) => ({ handle: n.id === 'l' ? '\u0000fanout' : null }))).ran,
    ).toEqual(['t', 'l', 'c']);
    expect(
      await walkFrom(topology(graph), null, async (n) => (n.id === 'l' ? { stop: true } : { handle: null })),
    ).toEqual({ ran: ['t', 'l'], stopped: true });
  });
});

describe('delayMsOf', () => {
  it.each([
    [{ delayMinutes: 2 / 60 }, 2000],
    [{ delayMinutes: 7 }, 420_000],
    [{ amount: 3, unit: 'hours' }, 3 * 3_600_000],
    [{ amount: 1, unit: 'weeks' }, 7 * 86_400_000],
    [{ amount: 2, unit: 'fortnights' }, null],
    [{ delayMinutes: 0 }, null],
    [{ delayMinutes: '5' }, null],
    [{}, null],
  ])('%j → %s ms (exact, not rounded)', (data, ms) => expect(delayMsOf(data)).toBe(ms));
});

describe('mergeContext and failureMessage', () => {
  it('later outputs replace per key; lookups accumulate', () => {
    const merged = mergeContext(
      { lead: { a: 1 }, lookup: { x: { found: true } } },
      { httpResponse: { status: 200 }, lookup: { y: { found: false } } },
    );
    expect(merged).toEqual({
      lead: { a: 1 },
      httpResponse: { status: 200 },
      lookup: { x: { found: true }, y: { found: false } },
    });
  });
  it('takes the innermost cause', () => {
    const err = Object.assign(new Error('Activity task failed'), { cause: new Error('POST https://x answered 500') });
    expect(failureMessage(err)).toBe('POST https://x answered 500');
  });
});

function dbDown(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
    name: 'DriverException',
    code: 'ECONNREFUSED',
  });
}

describe('toFailure: which errors are retried', () => {
  it.each([
    [new PermanentActionError('bad config'), 'retry', FAILURE_TYPES.permanent, true],
    [new DomainError('not_configured', 'no SMTP'), 'retry', FAILURE_TYPES.permanent, true],
    [new DomainError('upstream_failed', '500'), 'retry', 'AutomationActionError', false],
    [new Error('connection reset'), 'retry', 'AutomationActionError', false],
    [new Error('connection reset'), 'stop', FAILURE_TYPES.actionFailed, true],
    [new DomainError('upstream_failed', '500'), 'continue', FAILURE_TYPES.actionFailed, true],
    // Our database down (as MikroORM wraps pg's connect error) is retried under every failureBehavior ...
    [dbDown(), 'stop', FAILURE_TYPES.infrastructure, false],
    [dbDown(), 'continue', FAILURE_TYPES.infrastructure, false],
    [dbDown(), 'retry', FAILURE_TYPES.infrastructure, false],
    // ... a refused outbound call is the action's failure.
    [
      new DomainError('upstream_failed', 'could not fetch http://x: ECONNREFUSED'),
      'stop',
      FAILURE_TYPES.actionFailed,
      true,
    ],
  ] as const)('%s under %s → %s (non-retryable: %s)', (err, behavior, type, nonRetryable) => {
    const f = toFailure(err, behavior);
    expect(f).toBeInstanceOf(ApplicationFailure);
    expect([f.type, f.nonRetryable]).toEqual([type, nonRetryable]);
  });
});

describe('resolveActionConfig', () => {
  const context = { lead: { title: 'A & <B>', value: 1500 }, webhookData: { n: 3 } };
  it('resolves placeholders (typed when a value is one placeholder), escapes e-mail bodies, fills defaults', () => {
    expect(resolveActionConfig('create_note', { noteContent: 'Hi {{lead.title}}' }, context, 'UTC').config).toEqual({
      noteContent: 'Hi A & <B>',
    });
    const email = resolveActionConfig(
      'send_email',
      { subject: 'For {{lead.title}}', body: '<p>{{lead.title}}</p>' },
      context,
      'UTC',
    ).config;
    expect(email).toMatchObject({
      subject: 'For A & <B>',
      body: '<p>A &amp; &lt;B&gt;</p>',
      recipientField: 'primary',
      recipientType: 'auto',
    });
    expect(
      resolveActionConfig('create_deal', { title: 'D', value: '{{lead.value}}' }, context, 'UTC').config,
    ).toMatchObject({ value: 1500 });
    expect(resolveActionConfig('create_task', { title: 'T' }, context, 'UTC').config).toMatchObject({
      activityType: 'meeting',
      priority: 'medium',
      dateScheduleType: 'relative',
      durationMinutes: 30,
      assignTo: 'owner',
      conflictPolicy: 'find_next',
    });
  });
  it('reports unresolvable placeholders and refuses configs that end up invalid', () => {
    expect(
      resolveActionConfig('create_note', { noteContent: 'Hi {{firstName}} {{lead.title}}' }, context, 'UTC').unresolved,
    ).toEqual(['firstName (bare_name)']);
    expect(() => resolveActionConfig('create_note', { noteContent: '{{lead.missing}}' }, context, 'UTC')).toThrow(
      'create_note: config.noteContent: is required',
    );
  });
});

describe('recipients', () => {
  const context = {
    lead: { _id: WS, email: 'lead@x.test', phone: null },
    contact: {
      _id: ID,
      emails: [
        { email: 'p@x.test', label: 'work' },
        { email: 'home@x.test', label: 'privat' },
      ],
      phones: [{ phone: '+4511', label: 'mobile' }],
      mobile: '+4511',
      phone: '+4511',
    },
    company: { _id: '111111111111111111111111', email: 'info@co.test', phone: '+4599' },
  };
  it.each([
    ['primary', 'auto', ['lead@x.test']],
    ['primary', 'contact', ['p@x.test']],
    ['primary', 'company', ['info@co.test']],
    ['privat', 'auto', ['home@x.test']],
    ['company', 'auto', ['info@co.test']],
    ['all', 'auto', ['lead@x.test', 'p@x.test', 'home@x.test', 'info@co.test']],
    ['faktura', 'auto', []],
  ])('recipientField %s, recipientType %s', (field, type, expected) =>
    expect(emailRecipients(context, field, type)).toEqual(expected),
  );
  it('custom splits `to`; phones by field; links name every record', () => {
    expect(emailRecipients(context, 'custom', 'auto', 'a@x.test, b@x.test')).toEqual(['a@x.test', 'b@x.test']);
    expect(phoneOf(context, 'mobile')).toBe('+4511');
    expect(phoneOf(context, 'primary')).toBe('+4511');
    expect(phoneOf(context, 'work')).toBeNull();
    expect(messageLinks(context)).toEqual({ leadId: WS, personId: ID, companyId: '111111111111111111111111' });
  });
  it('the run record is the trigger entity, else the first CRM record in the context', () => {
    expect(triggerRecord({ system: { entityType: 'People', entityId: ID } })).toEqual({ kind: 'person', id: ID });
    expect(triggerRecord(context)).toEqual({ kind: 'lead', id: WS });
    expect(triggerRecord({ webhookData: {} })).toBeNull();
  });
});
