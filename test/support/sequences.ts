import { randomBytes } from 'node:crypto';
import type { Ctx } from '../../platform/context';
import { createRecord } from '../../platform/shared/records';
import { SequenceEnrollment, type EnrollmentStatus } from '../../modules/sequences/sequence.entity';
import { DEFAULT_SETTINGS } from '../../modules/sequences/definition.schemas';
import { definitionCreator } from './definitions';

/**
 * The engine settings of the sequence engine files: SMS through `gateway` (path /send, token gw-token,
 * sender ACME, country code 45), waits at 1/1000 (an hour is 3.6 s), and a 15 s engine deadline so that
 * updates answer synchronously even when a step holds the workflow task on a loaded machine (the deadline
 * itself is tested in engine-deadlines.test.ts).
 */
export const sequenceEngineEnv = (gateway: { url: string }): Record<string, string> => ({
  SMS_GATEWAY_URL: `${gateway.url}/send`,
  SMS_GATEWAY_TOKEN: 'gw-token',
  SMS_DEFAULT_FROM: 'ACME',
  SMS_DEFAULT_COUNTRY_CODE: '45',
  SEQUENCE_WAIT_SCALE: '0.001',
  ENGINE_DEADLINE_MS: '15000',
});

export interface SeqNode {
  id?: string;
  type: string;
  data?: Record<string, unknown>;
}

/** start → the given nodes in a line (ids s1, s2, … unless given). */
export function line(nodes: SeqNode[]) {
  const all = [
    { id: 'start', type: 'start', data: {} },
    ...nodes.map((n, i) => ({ id: n.id ?? `s${i + 1}`, type: n.type, data: n.data ?? {} })),
  ];
  return {
    nodes: all.map((n, i) => ({ ...n, position: { x: 100 + i * 300, y: 200 } })),
    edges: all.slice(1).map((n, i) => ({ id: `e${i + 1}`, source: all[i]!.id, target: n.id, sourceHandle: null })),
  };
}

export const emailNode = (data: Record<string, unknown> = {}, id?: string): SeqNode => ({
  id,
  type: 'send_email',
  data: { subject: 'Hello {{contact.firstName|default:there}}', body: '<p>Hi {{lead.title}}</p>', ...data },
});
export const waitNode = (data: Record<string, unknown> = {}, id?: string): SeqNode => ({ id, type: 'wait', data });

export const createSequence = definitionCreator(
  '/api/v1/sequences',
  'sequence',
  () => `Sequence ${randomBytes(3).toString('hex')}`,
);

/** Enrollments are made by the engine: tests that only need a row insert one (no workflow). */
export async function insertEnrollment(
  ctx: Ctx,
  sequenceId: string,
  seed: { status?: EnrollmentStatus; entityId?: string; entityType?: string } = {},
): Promise<SequenceEnrollment> {
  const e = createRecord(ctx, SequenceEnrollment, {
    sequenceId,
    sequenceName: 'Seeded',
    entityType: seed.entityType ?? 'Lead',
    entityId: seed.entityId ?? '0123456789abcdef01234567',
    personId: null,
    links: {},
    exclusive: true,
    status: seed.status ?? 'completed',
    exitReason: null,
    source: 'test',
    currentNodeId: null,
    nextActionAt: null,
    pausedUntil: null,
    snapshot: { version: 1, nodes: [], edges: [], settings: DEFAULT_SETTINGS },
    workflowId: '',
    enrolledAt: new Date(),
    finishedAt: null,
    error: null,
    enrolledBy: ctx.actor.userId,
    unsubscribeToken: randomBytes(24).toString('base64url'),
  });
  e.workflowId = `sequence-enrollment:${ctx.actor.workspaceId}:${e._id}`;
  await ctx.em.flush();
  return e;
}
