import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { registryRoutes } from '../../api/docs/registry-document';
import { collectRefs, declaredFields, ref, refKindOf } from '../../platform/references/refs';
import { REF_KINDS } from '../../platform/references/ref-kinds';
import { automationNodeParts } from '../../modules/automations/graph-refs.service';
import { sequenceParts } from '../../modules/sequences/graph-refs.service';
import { INVITE_RETRY, dueForInvitation, invitationSummary, nextAttemptAt } from '../../modules/contracts/invitations';
import { declaredRefs, idFieldAudit, NOT_REFERENCES } from '../support/reference-fields';
import { graphNode } from '../support/definitions';

const ID = '0123456789abcdef01234567';
const ID2 = '0123456789abcdef01234568';

describe('ref(): reference fields declared on the schema', () => {
  const schema = z
    .object({
      owner: ref('user').describe('survives describe'),
      company: ref('company').nullable().optional(),
      people: z.array(ref('person')).optional(),
      nested: z.object({ flowId: ref('flow', z.string().trim()) }).partial(),
      target: z.union([z.literal('root'), ref('folder')]).optional(),
      name: z.string(),
    })
    .transform((v) => v);

  it('finds every declared id with its path, and nothing else', () => {
    const value = schema.parse({
      owner: ID,
      company: null,
      people: [ID, ID2],
      nested: { flowId: ` ${ID2}` },
      target: 'root',
      name: ID,
    });
    expect(collectRefs(schema, value)).toEqual([
      { path: 'owner', kind: 'user', id: ID },
      { path: 'people[0]', kind: 'person', id: ID },
      { path: 'people[1]', kind: 'person', id: ID2 },
      { path: 'nested.flowId', kind: 'flow', id: ID2 },
    ]);
    expect(collectRefs(schema, schema.parse({ owner: ID2, nested: {}, name: 'x', target: ID }))).toEqual([
      { path: 'owner', kind: 'user', id: ID2 },
      { path: 'target', kind: 'folder', id: ID },
    ]);
  });

  it('lists the declared fields of a schema (every union option), with undeclared leaves', () => {
    const fields = declaredFields(schema);
    expect(fields.filter((f) => f.kind)).toEqual([
      { path: 'owner', kind: 'user' },
      { path: 'company', kind: 'company' },
      { path: 'people[]', kind: 'person' },
      { path: 'nested.flowId', kind: 'flow' },
      { path: 'target', kind: 'folder' },
    ]);
    expect(fields.find((f) => f.path === 'name')).toEqual({ path: 'name', kind: undefined });
  });

  it('marks a clone: the shared base schema stays unmarked', () => {
    const base = z.string();
    const marked = ref('deal', base);
    expect(refKindOf(marked)).toBe('deal');
    expect(refKindOf(base)).toBeUndefined();
  });

  it('every kind names an entity and a label', () => {
    for (const [kind, spec] of Object.entries(REF_KINDS)) {
      expect([kind, typeof spec.entity, typeof spec.label]).toEqual([kind, 'string', 'string']);
    }
  });
});

describe('the route registry', () => {
  const routes = registryRoutes();

  it('declares every body and query field named like an id (or says why it is not a reference)', () => {
    expect(idFieldAudit(routes).undeclared).toEqual([]);
  });

  it('every allow-list entry covers a field of some route (no stale entries)', () => {
    const { used } = idFieldAudit(routes);
    expect(Object.keys(NOT_REFERENCES).filter((k) => !used.has(k))).toEqual([]);
  });

  it('declares the fields of issue 29 (offer settings, project templates, calculations, report filters)', () => {
    const refs = declaredRefs(routes).map((r) => `${r.route.method} ${r.route.path} ${r.where}:${r.path} ${r.kind}`);
    expect(refs).toEqual(
      expect.arrayContaining([
        'PATCH /api/v1/workspace/offer-settings body:defaults.defaultTemplateId offer-template',
        'PATCH /api/v1/workspace/offer-settings body:defaults.defaultOfferTypeId offer-type',
        'PATCH /api/v1/workspace/offer-settings body:emailSettings.senderAccountId email-account',
        'POST /api/v1/project-templates body:flowRef flow',
        'POST /api/v1/project-templates body:projectData.owner user',
        'POST /api/v1/calculator-templates/:id/calculate body:offerId offer',
        'GET /api/v1/reports/history query:userId user',
      ]),
    );
  });

  it('every allow-list entry explains itself', () => {
    for (const [field, why] of Object.entries(NOT_REFERENCES)) expect([field, why.length > 3]).toEqual([field, true]);
  });
});

describe('graph references', () => {
  it('automation triggers, actions and lookups yield their declared ids (graphRefIssues leaves placeholders to run time)', () => {
    const parts = automationNodeParts([
      { id: 't', type: 'trigger', data: { triggerType: 'booking_created', config: { bookingConfigId: ID } } },
      { id: 'a1', type: 'action', data: { actionType: 'add_to_sequence', config: { sequenceId: ID2 } } },
      { id: 'a2', type: 'action', data: { actionType: 'add_to_list', config: { listId: '{{trigger.listId}}' } } },
      {
        id: 'a3',
        type: 'action',
        data: { actionType: 'send_email', config: { templateId: ID, senderAccountId: ID2 } },
      },
      { id: 'l', type: 'lookup', data: { entityType: 'CustomObjectRecord', customObjectId: 'machines' } },
    ]);
    const found = parts.flatMap((p) =>
      collectRefs(p.schema, p.value).map((r) => `${p.nodeId} ${p.base}.${r.path} ${r.kind}`),
    );
    expect(found).toEqual([
      `t nodes[0].data.config.bookingConfigId booking-config`,
      `a1 nodes[1].data.config.sequenceId sequence`,
      `a2 nodes[2].data.config.listId list`,
      `a3 nodes[3].data.config.templateId email-template`,
      `a3 nodes[3].data.config.senderAccountId email-account`,
      `l nodes[4].data.customObjectId custom-object`,
    ]);
  });

  it('sequence steps and triggers yield their declared ids', () => {
    const parts = sequenceParts(
      [
        graphNode('start', 'start', [0, 0], {}),
        graphNode('mail', 'send_email', [0, 0], { emailMode: 'template', templateId: ID, senderAccountId: ID2 }),
        graphNode('sms', 'send_sms', [0, 0], { smsMode: 'template', templateId: ID2 }),
      ],
      [{ type: 'sequence_event', id: 'after', sourceSequenceId: ID, event: 'sequence_completed' } as never],
    );
    const found = parts.flatMap((p) => collectRefs(p.schema, p.value).map((r) => `${p.nodeId} ${r.path} ${r.kind}`));
    expect(found).toEqual([
      'mail templateId email-template',
      'mail senderAccountId email-account',
      'sms templateId sms-template',
      'after sourceSequenceId sequence',
    ]);
  });
});

describe('invitation delivery', () => {
  it('the retry policy is the one the envelope workflow declares', () => {
    const src = readFileSync(join(__dirname, '../../modules/contracts/contract-envelope.workflow.ts'), 'utf8');
    expect(INVITE_RETRY).toEqual({
      initialIntervalMs: 5_000,
      backoffCoefficient: 2,
      maximumIntervalMs: 3_600_000,
      scheduleToCloseMs: 26 * 3_600_000,
    });
    expect(src).toContain(
      "scheduleToCloseTimeout: '26 hours',\n  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 hour' },",
    );
  });

  it('the next attempt backs off to an hour and ends with the schedule-to-close time', () => {
    const t0 = Date.UTC(2026, 0, 1);
    expect(nextAttemptAt(1, t0, t0)?.getTime()).toBe(t0 + 5_000);
    expect(nextAttemptAt(3, t0 + 60_000, t0)?.getTime()).toBe(t0 + 60_000 + 20_000);
    expect(nextAttemptAt(20, t0 + 3_600_000, t0)?.getTime()).toBe(t0 + 2 * 3_600_000);
    expect(nextAttemptAt(30, t0 + 25.5 * 3_600_000, t0)).toBeNull();
  });

  const signer = (id: string, over: Record<string, unknown> = {}) =>
    ({ _id: id, role: 'signer', status: 'pending', invitedAt: null, invitationStatus: null, ...over }) as never;

  it('sequential mode invites the next signer, parallel mode every signer not yet invited', () => {
    const list = [signer('a', { status: 'signed', invitedAt: new Date() }), signer('b'), signer('c')];
    expect(dueForInvitation('sequential', list).map((s: any) => s._id)).toEqual(['b']);
    expect(dueForInvitation('parallel', list).map((s: any) => s._id)).toEqual(['b', 'c']);
  });

  it('none delivered only when attempts were made and nothing got out (legacy invited rows count as sent)', () => {
    expect(
      invitationSummary([signer('a', { invitationStatus: 'retrying' }), signer('b', { invitationStatus: 'failed' })]),
    ).toEqual({ queued: 0, sent: 0, retrying: 1, failed: 1, noneDelivered: true });
    expect(
      invitationSummary([signer('a', { invitedAt: new Date() }), signer('b', { invitationStatus: 'retrying' })]),
    ).toMatchObject({ sent: 1, noneDelivered: false });
    expect(invitationSummary([signer('a', { invitationStatus: 'queued' })]).noneDelivered).toBe(false);
  });
});
