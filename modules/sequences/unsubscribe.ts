/**
 * The unsubscribe link of sequence e-mails: `<workspaceId><enrollmentId>.<HMAC-SHA256>` signed with
 * a key derived from CRM_SECRETS_KEY, so the link names its enrollment and cannot be forged or
 * guessed (a mail client cannot send credentials). Using it opts the contact out of sequences (no
 * new enrollment) and exits every running enrollment of that contact. Links of e-mails sent before
 * the signed form (a random per-enrollment token) keep working.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import { DomainError, notFound } from '../../platform/errors';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { mapLimited } from '../../platform/shared/concurrency';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import type { SequenceWorkflowPort } from './ports';
import { SequenceEnrollment } from './sequence.entity';
import { exitQueued } from './exit-queued';

export const UNSUBSCRIBE_PATH = '/api/unsubscribe';

/** The signing key of unsubscribe links, or null without CRM_SECRETS_KEY. */
export function unsubscribeKey(config: Pick<AppConfig, 'secretsKey'>): Buffer | null {
  const secrets = parseSecretsKey(config.secretsKey);
  return secrets ? createHmac('sha256', secrets).update('crm sequence unsubscribe v1').digest() : null;
}

const sign = (key: Buffer, workspaceId: string, enrollmentId: string): string =>
  createHmac('sha256', key).update(`unsubscribe\n${workspaceId}\n${enrollmentId}`).digest('base64url');

export function signUnsubscribeToken(key: Buffer, workspaceId: string, enrollmentId: string): string {
  return `${workspaceId}${enrollmentId}.${sign(key, workspaceId, enrollmentId)}`;
}

/** The workspace and enrollment a genuine signed token names, else null. */
export function verifyUnsubscribeToken(
  key: Buffer | null,
  token: string,
): { workspaceId: string; enrollmentId: string } | null {
  const m = /^([0-9a-f]{24})([0-9a-f]{24})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!key || !m) return null;
  const expected = Buffer.from(sign(key, m[1]!, m[2]!));
  const given = Buffer.from(m[3]!);
  return expected.length === given.length && timingSafeEqual(expected, given)
    ? { workspaceId: m[1]!, enrollmentId: m[2]! }
    : null;
}

export function unsubscribeUrl(
  config: Pick<AppConfig, 'publicBaseUrl' | 'secretsKey'>,
  e: { workspaceId: string; _id: string },
): string {
  const key = unsubscribeKey(config);
  if (!key)
    throw new DomainError(
      'not_configured',
      'unsubscribe links are signed with a key derived from CRM_SECRETS_KEY: set it (64 hex characters)',
    );
  return `${config.publicBaseUrl}${UNSUBSCRIBE_PATH}/${signUnsubscribeToken(key, e.workspaceId, e._id)}`;
}

/** Random tokens of links sent before the signed form. */
export const isUnsubscribeToken = (t: string): boolean => /^[A-Za-z0-9_-]{20,64}$/.test(t);

/** Opts the enrollment's contact out and exits its running enrollments (idempotent). */
export async function unsubscribe(
  orm: MikroORM,
  workflows: SequenceWorkflowPort,
  token: string,
  key: Buffer | null,
): Promise<{ unsubscribed: true; exited: number }> {
  const fields = ['_id', 'workspaceId', 'entityType', 'entityId', 'personId'] as const;
  const signed = verifyUnsubscribeToken(key, token);
  // A signed token names its workspace and enrollment; a legacy random one is looked up across workspaces.
  const found = signed
    ? await forkForWorkspace(orm.em, signed.workspaceId).findOne(
        SequenceEnrollment,
        { _id: signed.enrollmentId },
        { fields },
      )
    : !token.includes('.') && isUnsubscribeToken(token)
      ? await orm.em.fork().findOne(SequenceEnrollment, { unsubscribeToken: token }, { filters: false, fields })
      : null;
  if (!found) throw notFound('unsubscribe link');
  const em = forkForWorkspace(orm.em, found.workspaceId);
  const contact = found.personId
    ? { entityType: 'People', entityId: found.personId }
    : { entityType: found.entityType, entityId: found.entityId };
  await em
    .getConnection()
    .execute(
      `insert into sequence_opt_out (id, workspace_id, created_at, updated_at, entity_type, entity_id, enrollment_id) values (?, ?, now(), now(), ?, ?, ?) on conflict do nothing`,
      [found._id, found.workspaceId, contact.entityType, contact.entityId, found._id],
    );
  const running = await em.find(
    SequenceEnrollment,
    {
      status: { $in: ['active', 'paused'] },
      $or: [
        { entityType: found.entityType, entityId: found.entityId },
        ...(found.personId ? [{ personId: found.personId }, { entityType: 'People', entityId: found.personId }] : []),
      ],
    },
    { fields: ['_id', 'workflowId'] },
  );
  // Rows whose workflow has not started yet end here (start-queue.ts); the others are signalled.
  const ended = await exitQueued(
    em,
    running.map((r) => r._id),
    'unsubscribed',
  );
  const results = await mapLimited(
    running.filter((r) => !ended.has(r._id)),
    8,
    (r) => workflows.exit(r.workflowId, 'unsubscribed').catch(() => false),
  );
  return { unsubscribed: true, exited: ended.size + results.filter(Boolean).length };
}
