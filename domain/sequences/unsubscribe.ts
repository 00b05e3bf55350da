/**
 * The unsubscribe link of sequence e-mails: a random per-enrollment token is the capability (as
 * image tokens are: a mail client cannot send credentials). Using it opts the contact out of
 * sequences (no new enrollment) and exits every running enrollment of that contact.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../config';
import { notFound } from '../errors';
import { forkForWorkspace } from '../orm/tenant';
import { mapLimited } from '../shared/concurrency';
import type { SequenceWorkflowPort } from './ports';
import { SequenceEnrollment } from './sequence.entity';

export const UNSUBSCRIBE_PATH = '/api/unsubscribe';

export const unsubscribeUrl = (config: Pick<AppConfig, 'publicBaseUrl'>, e: { unsubscribeToken: string }): string =>
  `${config.publicBaseUrl}${UNSUBSCRIBE_PATH}/${e.unsubscribeToken}`;

export const isUnsubscribeToken = (t: string): boolean => /^[A-Za-z0-9_-]{20,64}$/.test(t);

/** Opts the enrollment's contact out and exits its running enrollments (idempotent). */
export async function unsubscribe(orm: MikroORM, workflows: SequenceWorkflowPort, token: string): Promise<{ unsubscribed: true; exited: number }> {
  if (!isUnsubscribeToken(token)) throw notFound('unsubscribe link');
  // The token names the workspace: looked up across workspaces, then everything else is bound to it.
  const found = await orm.em.fork().findOne(SequenceEnrollment, { unsubscribeToken: token }, { filters: false, fields: ['_id', 'workspaceId', 'entityType', 'entityId', 'personId'] });
  if (!found) throw notFound('unsubscribe link');
  const em = forkForWorkspace(orm.em, found.workspaceId);
  const contact = found.personId ? { entityType: 'People', entityId: found.personId } : { entityType: found.entityType, entityId: found.entityId };
  await em.getConnection().execute(
    `insert into sequence_opt_out (id, workspace_id, created_at, updated_at, entity_type, entity_id, enrollment_id) values (?, ?, now(), now(), ?, ?, ?) on conflict do nothing`,
    [found._id, found.workspaceId, contact.entityType, contact.entityId, found._id],
  );
  const running = await em.find(SequenceEnrollment, {
    status: { $in: ['active', 'paused'] },
    $or: [{ entityType: found.entityType, entityId: found.entityId }, ...(found.personId ? [{ personId: found.personId }, { entityType: 'People', entityId: found.personId }] : [])],
  }, { fields: ['_id', 'workflowId'] });
  const results = await mapLimited(running, 8, (r) => workflows.exit(r.workflowId, 'unsubscribed').catch(() => false));
  return { unsubscribed: true, exited: results.filter(Boolean).length };
}

