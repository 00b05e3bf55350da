// What the soak sets up before the faults start: a workspace and mailbox (as the operator CLI would), then
// through the API a webhook subscription, two automations, a sequence with a wait and a booking page.
import { MikroORM } from '@mikro-orm/postgresql';
import { addEmailAccount } from '../../modules/email/email-accounts.service';
import { ormConfig } from '../../app/orm';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import { createWorkspace } from '../../modules/workspaces';
import type { Fixtures, SoakClient } from './driver';

/** Outbound webhook events the receiver subscribes to (docs/soak.md "Expected side effects"). */
export const HOOK_EVENTS = [
  'company.created',
  'booking.created',
  'booking.approved',
  'booking.rejected',
  'contract.sent',
  'contract.completed',
] as const;

/** Sequence wait (minutes, before SEQUENCE_WAIT_SCALE) between the two e-mails of the soak sequence. */
export const SEQUENCE_WAIT_MINUTES = 1;

const must = (what: string, r: { outcome: unknown; data?: any }): any => {
  if (r.outcome !== 200 && r.outcome !== 201) throw new Error(`soak set-up: ${what} answered ${String(r.outcome)}`);
  return r.data;
};

const graph = (trigger: Record<string, unknown>, url: string, payload: Record<string, unknown>) => ({
  nodes: [
    { id: 'trigger_1', type: 'trigger', position: { x: 0, y: 0 }, data: trigger },
    {
      id: 'action_1',
      type: 'action',
      position: { x: 0, y: 200 },
      data: { actionType: 'send_webhook', config: { url, payload } },
    },
  ],
  edges: [{ id: 'e1', source: 'trigger_1', target: 'action_1', sourceHandle: null }],
});

export async function createWorkspaceAndMailbox(opts: {
  databaseUrl: string;
  secretsKey: string;
  smtpPort: number;
}): Promise<{ apiKey: string; workspaceId: string; accountId: string }> {
  const orm = await MikroORM.init(ormConfig(opts.databaseUrl));
  try {
    const ws = await createWorkspace(orm.em.fork(), { name: 'Soak', ownerEmail: 'owner@soak.test' });
    const account = await addEmailAccount(
      orm.em.fork(),
      {
        workspaceId: ws.workspaceId,
        name: 'Soak mailbox',
        emailAddress: 'sales@soak.test',
        displayName: 'Soak Sales',
        smtp: { host: '127.0.0.1', port: opts.smtpPort, secure: false, user: 'soak', password: 'soak' },
      },
      parseSecretsKey(opts.secretsKey),
    );
    return { apiKey: ws.apiKey, workspaceId: ws.workspaceId, accountId: account.account._id };
  } finally {
    await orm.close(true);
  }
}

export async function createFixtures(
  client: SoakClient,
  base: { apiKey: string; accountId: string },
  hookUrl: string,
): Promise<Fixtures> {
  must(
    'webhook subscription',
    await client.post('/api/v1/webhooks/subscriptions', { url: `${hookUrl}/hooks`, events: [...HOOK_EVENTS] }),
  );
  const automations = [
    graph({ triggerType: 'record_created', config: { entityTypes: ['company'] } }, `${hookUrl}/auto/company`, {
      name: '{{company.name}}',
    }),
    graph({ triggerType: 'booking_approved' }, `${hookUrl}/auto/booking-approved`, { email: '{{person.email}}' }),
  ];
  for (const [i, g] of automations.entries()) {
    const a = must('automation', await client.post('/api/v1/automations', { name: `Soak automation ${i}`, ...g }));
    const t = must('automation toggle', await client.post(`/api/v1/automations/${a._id}/toggle`, {}));
    if (t.isActive !== true) throw new Error('soak set-up: automation did not activate');
  }
  const nodes = [
    { id: 'start', type: 'start', data: {} },
    { id: 'a', type: 'send_email', data: { subject: 'Soak step A', body: '<p>First</p>' } },
    { id: 'w', type: 'wait', data: { waitAmount: SEQUENCE_WAIT_MINUTES, waitUnit: 'minutes' } },
    { id: 'b', type: 'send_email', data: { subject: 'Soak step B', body: '<p>Second</p>' } },
  ];
  const seq = must(
    'sequence',
    await client.post('/api/v1/sequences', {
      name: 'Soak sequence',
      nodes: nodes.map((n, i) => ({ ...n, position: { x: i * 300, y: 0 } })),
      edges: nodes.slice(1).map((n, i) => ({ id: `e${i}`, source: nodes[i]!.id, target: n.id, sourceHandle: null })),
    }),
  );
  const toggled = must('sequence toggle', await client.post(`/api/v1/sequences/${seq._id}/toggle`, {}));
  if (toggled.isActive !== true) throw new Error('soak set-up: sequence did not activate');
  const me = await client.get('/api/v1/whoami');
  const allDay = Object.fromEntries(
    ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start: '00:00', end: '24:00' }]]),
  );
  const config = must(
    'booking config',
    await client.post('/api/v1/booking-configs', {
      name: 'Soak booking page',
      timeZone: 'UTC',
      agents: [{ userId: me.user._id, weeklyAvailability: allDay }],
      meetingTypes: [{ id: 'intro', name: 'Intro call', durationMinutes: 30 }],
      minimumNoticeMinutes: 0,
      slotIntervalMinutes: 30,
      requiresApproval: true,
      approvalDeadlineHours: 1,
      approvalReminderHours: null,
      onApprovalTimeout: 'reject',
    }),
  );
  return { apiKey: base.apiKey, sequenceId: seq._id, bookingConfigId: config._id, accountId: base.accountId };
}
