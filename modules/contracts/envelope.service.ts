/**
 * The envelope workflow's steps (called by modules/contracts/contracts.activities.ts). Each takes ids,
 * forks its own EM and reads the database, so a retry or a replacement worker acts on what is
 * committed. Links are created here, at send time, and exist only inside the message sent.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import type { Logger } from '../../platform/logger';
import {
  normalizePhoneNumber,
  normalizeSmsSender,
  parseMailbox,
  type EmailTransport,
  type SmsGateway,
} from '../messaging';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { emitContractEvent } from './contract-events';
import { Contract, ContractDocument, ContractSigner } from './contract.entity';
import type { EnvelopeStep } from './contract-envelope.messages';
import { renderSignedPdf } from './pdf';
import { newSignerToken } from './tokens';
import { newId } from '../../platform/ids';
import { dueForInvitation, resendDue, type AttemptInfo } from './invitations';
export type { AttemptInfo } from './invitations';
import { lockContractRow, lockedEnvelope } from './contract-lock';
import { recordInvitationFailures, refreshInvitationError, type InvitationFailure } from './invitation-failures';

export interface EnvelopeDeps {
  orm: MikroORM;
  transport: EmailTransport;
  gateway: SmsGateway;
  publicBaseUrl: string;
  log: Logger;
}
export interface EnvelopeIds {
  workspaceId: string;
  contractId: string;
}

const systemCtx = (em: EntityManager, workspaceId: string, userId: string): Ctx => ({
  em,
  actor: { workspaceId, userId, role: 'owner', scopes: [] },
});

async function load(em: EntityManager, contractId: string): Promise<{ c: Contract; signers: ContractSigner[] } | null> {
  const c = await em.findOne(Contract, { _id: contractId }, { refresh: true });
  if (!c) return null;
  const signers = await em.find(ContractSigner, { contractId }, { orderBy: { position: 'asc' }, refresh: true });
  return { c, signers };
}

/** Re-reads the envelope: completes it when every signer signed, else names who is due an invitation. */
export async function advanceEnvelope(deps: EnvelopeDeps, ids: EnvelopeIds): Promise<EnvelopeStep> {
  const em = forkForWorkspace(deps.orm.em, ids.workspaceId);
  const state = await load(em, ids.contractId);
  if (!state) return { status: 'missing', invite: [] };
  const { c, signers } = state;
  if (c.status !== 'sent') return { status: c.status, invite: [] };
  const required = signers.filter((s) => s.role === 'signer');
  if (required.every((s) => s.status === 'signed'))
    return { status: await completeEnvelope(deps, em, c, signers), invite: [] };
  const due = dueForInvitation(c.mode, signers);
  const fresh = due.filter((s) => !s.invitationStatus).map((s) => s._id);
  if (fresh.length)
    await em.nativeUpdate(
      ContractSigner,
      { _id: { $in: fresh }, invitationStatus: null },
      { invitationStatus: 'queued' },
    );
  // A resend asked by the API (POST …/resend) and not sent yet: the invitation goes out again (inviteSigners).
  const resend = signers.filter((s) => resendDue(s) && !due.includes(s)).map((s) => s._id);
  return {
    status: 'sent',
    invite: [...due.map((s) => s._id), ...resend],
    deadlineAt: c.deadlineAt?.toISOString() ?? null,
  };
}

/** sent → accepted once: the PDF and the event are committed in one transaction; a repeat finds it done. */
async function completeEnvelope(
  deps: EnvelopeDeps,
  em: EntityManager,
  c: Contract,
  signers: ContractSigner[],
): Promise<EnvelopeStep['status']> {
  const completedAt = new Date();
  const { pdf, sha256 } = await renderSignedPdf(c, signers, completedAt);
  return em.transactional(async (tx) => {
    const moved = await tx.nativeUpdate(
      Contract,
      { _id: c._id, status: 'sent' },
      { status: 'accepted', completedAt, updatedAt: completedAt },
    );
    if (!moved)
      return ((await tx.findOne(Contract, { _id: c._id }, { refresh: true }))?.status ??
        'missing') as EnvelopeStep['status'];
    tx.persist(
      tx.create(ContractDocument, {
        _id: newId(completedAt),
        workspaceId: c.workspaceId,
        createdAt: completedAt,
        updatedAt: completedAt,
        contractId: c._id,
        pdf: Buffer.from(pdf),
        pdfSha256: sha256,
        documentSha256: c.documentSha256 ?? '',
      }),
    );
    emitContractEvent(systemCtx(tx, c.workspaceId, c.createdBy), c, 'contract_completed', {
      completedAt: completedAt.toISOString(),
      signers: signers.filter((s) => s.role === 'signer').length,
      documentSha256: c.documentSha256,
      signedPdfSha256: sha256,
    });
    return 'accepted' as const;
  });
}

/** deadlineAt passed: sent → expired (a signature committed first wins; then this is a no-op). */
export async function expireEnvelope(deps: EnvelopeDeps, ids: EnvelopeIds): Promise<{ status: string }> {
  const em = forkForWorkspace(deps.orm.em, ids.workspaceId);
  return em.transactional(async (tx) => {
    const now = new Date();
    const envelope = await lockedEnvelope(tx, ids.contractId);
    if (!envelope) return { status: 'missing' };
    const { c, signers } = envelope;
    // Every signature arrived before the deadline (the workflow had not run yet): it completes, not expires.
    const mustSign = signers.filter((s) => s.role === 'signer');
    if (mustSign.every((s) => s.status === 'signed')) return { status: c.status };
    const moved = await tx.nativeUpdate(
      Contract,
      { _id: c._id, status: 'sent', deadlineAt: { $lte: now } },
      { status: 'expired', expiredAt: now, updatedAt: now },
    );
    if (!moved) return { status: c.status };
    emitContractEvent(systemCtx(tx, c.workspaceId, c.createdBy), c, 'contract_expired', {
      deadlineAt: c.deadlineAt?.toISOString() ?? null,
    });
    return { status: 'expired' };
  });
}

const linkOf = (deps: EnvelopeDeps, token: string, path = '') =>
  `${deps.publicBaseUrl}/public/contracts/sign/${token}${path}`;

interface Message {
  subject: string;
  text: (link: string) => string;
  sms: (link: string) => string;
  linkPath?: string;
}

/** The signer row as it was read: a correction since (PATCH …/signers/:signerId) sets a new correctedAt. */
const asRead = (s: ContractSigner) => ({ _id: s._id, correctedAt: s.correctedAt ?? null });

/**
 * Rotates the signer's link (a new token; the old one stops working) and sends it by the
 * contract's channels. The token lives only in this function and the message. False (nothing sent)
 * when the signer was corrected since it was read: the message would go to the old address.
 */
async function sendWithNewLink(
  deps: EnvelopeDeps,
  em: EntityManager,
  c: Contract,
  s: ContractSigner,
  msg: Message,
): Promise<boolean> {
  const { token, hash } = newSignerToken();
  const now = new Date();
  const current = await em.nativeUpdate(ContractSigner, asRead(s), {
    tokenHash: hash,
    tokenIssuedAt: now,
    updatedAt: now,
  });
  if (!current) return false;
  const link = linkOf(deps, token, msg.linkPath);
  const channels = c.channels ?? { email: true, sms: false };
  if (channels.email) {
    const from = deps.transport.defaultFrom ? parseMailbox(deps.transport.defaultFrom) : null;
    await deps.transport.send({
      from: from && 'mailbox' in from ? from.mailbox : { address: 'no-reply@localhost' },
      to: [{ address: s.email, name: s.name }],
      subject: msg.subject,
      text: msg.text(link),
    });
  }
  if (channels.sms && s.phone) {
    const to = normalizePhoneNumber(s.phone, deps.gateway.defaultCountryCode);
    const from = deps.gateway.defaultFrom
      ? normalizeSmsSender(deps.gateway.defaultFrom, deps.gateway.defaultCountryCode)
      : null;
    if ('phone' in to && from && 'from' in from)
      await deps.gateway.send({ to: to.phone, from: from.from, message: msg.sms(link) });
    else
      deps.log.warn(
        { contractId: c._id, signerId: s._id },
        'contract envelope: SMS skipped (invalid number or no sender)',
      );
  }
  return true;
}

const inviteMessage = (c: Contract): Message => ({
  subject: `Please sign: ${c.title}`,
  text: (link) =>
    `${c.message ? `${c.message}\n\n` : ''}You are asked to sign "${c.title}".\n\nOpen the document to read and sign it:\n${link}\n${c.deadlineAt ? `\nPlease sign before ${c.deadlineAt.toISOString()}.\n` : ''}`,
  sms: (link) => `Please sign "${c.title}": ${link}`,
});

/**
 * Invites the named signers once each (an invitation already sent is not repeated). Every due
 * signer is tried; each one's row records its delivery (sent, or retrying with the error and the
 * next attempt, or failed once the retries are used up), then a failure is thrown so Temporal
 * retries the ones left.
 */
export async function inviteSigners(
  deps: EnvelopeDeps,
  input: EnvelopeIds & { signerIds: string[] },
  attempt: AttemptInfo = { attempt: 1, firstScheduledMs: Date.now() },
): Promise<{ invited: number }> {
  const em = forkForWorkspace(deps.orm.em, input.workspaceId);
  const state = await load(em, input.contractId);
  if (!state || state.c.status !== 'sent') return { invited: 0 };
  let invited = 0;
  const failures: InvitationFailure[] = [];
  const sent = new Set<string>();
  const due = (x: ContractSigner) => input.signerIds.includes(x._id) && (x.invitedAt === null || resendDue(x));
  for (const s of state.signers.filter(due)) {
    const resend = s.invitedAt !== null;
    try {
      // Corrected meanwhile: the correction queued a new invitation to the new address (the next re-read).
      if (!(await sendWithNewLink(deps, em, state.c, s, inviteMessage(state.c)))) continue;
    } catch (err) {
      failures.push({ signer: s, error: err });
      continue;
    }
    const now = new Date();
    const delivered = {
      lastNotifiedAt: now,
      invitationStatus: 'sent' as const,
      invitationError: null,
      invitationNextAttemptAt: null,
      invitationAttempts: s.invitationAttempts + 1,
      updatedAt: now,
    };
    // A resend keeps the first invitation's time; a first invitation is recorded once. A correction
    // committed while this was sending cleared the link and queued a new invitation: it stays so.
    // The signer's row and the contract's lastError change together: a reader never sees every invitation
    // sent beside the error of an earlier attempt.
    const moved = await em.transactional(async (tx) => {
      await lockContractRow(tx, state.c._id);
      const n = resend
        ? await tx.nativeUpdate(ContractSigner, asRead(s), delivered)
        : await tx.nativeUpdate(ContractSigner, { ...asRead(s), invitedAt: null }, { ...delivered, invitedAt: now });
      if (!n) return 0;
      await tx.nativeUpdate(ContractSigner, { _id: s._id, status: 'pending' }, { status: 'invited', updatedAt: now });
      await refreshInvitationError(tx, state.c);
      return n;
    });
    if (!moved) continue;
    sent.add(s._id);
    invited++;
  }
  if (failures.length) {
    await recordInvitationFailures(em, state, failures, sent, attempt);
    deps.log.warn(
      { contractId: input.contractId, invited, failed: failures.length, attempt: attempt.attempt },
      'contract envelope: invitations not delivered',
    );
    throw failures[0]!.error;
  }
  // Nothing was delivered now, yet an error may be left (every due signer was delivered by an earlier attempt).
  if (!invited && state.c.lastError) await em.transactional((tx) => refreshInvitationError(tx, state.c));
  deps.log.info({ contractId: input.contractId, invited }, 'contract envelope: invitations sent');
  return { invited };
}

/** Reminds invited signers who have not signed and were last contacted at least one interval ago. */
export async function remindSigners(
  deps: EnvelopeDeps,
  input: EnvelopeIds & { intervalMs: number },
): Promise<{ reminded: number }> {
  const em = forkForWorkspace(deps.orm.em, input.workspaceId);
  const state = await load(em, input.contractId);
  if (!state || state.c.status !== 'sent') return { reminded: 0 };
  // A little slack: the timer and the last send are not exactly one interval apart.
  const cutoff = Date.now() - input.intervalMs * 0.9;
  let reminded = 0;
  for (const s of state.signers) {
    if (s.role !== 'signer' || !s.invitedAt || s.status === 'signed' || s.status === 'declined') continue;
    if (s.lastNotifiedAt && s.lastNotifiedAt.getTime() > cutoff) continue;
    const base = inviteMessage(state.c);
    const subject = `Reminder: please sign ${state.c.title}`;
    if (!(await sendWithNewLink(deps, em, state.c, s, { ...base, subject }))) continue;
    const now = new Date();
    await em.nativeUpdate(
      ContractSigner,
      { _id: s._id },
      { lastNotifiedAt: now, remindersSent: s.remindersSent + 1, updatedAt: now },
    );
    reminded++;
  }
  return { reminded };
}

/** The envelope ended: signed copies to everyone (cc included) once accepted; void notices when asked. */
export async function closeEnvelope(
  deps: EnvelopeDeps,
  input: EnvelopeIds & { status: string },
): Promise<{ notified: number }> {
  const em = forkForWorkspace(deps.orm.em, input.workspaceId);
  const state = await load(em, input.contractId);
  if (!state) return { notified: 0 };
  const { c, signers } = state;
  let notified = 0;
  if (c.status === 'accepted') {
    for (const s of signers.filter((x) => x.copySentAt === null)) {
      await sendWithNewLink(deps, em, c, s, {
        subject: `Signed: ${c.title}`,
        linkPath: '/document',
        text: (link) =>
          `"${c.title}" has been signed by every signer.\n\nDownload the signed document (PDF with audit trail):\n${link}\n`,
        sms: (link) => `"${c.title}" is signed. Signed copy: ${link}`,
      });
      await em.nativeUpdate(ContractSigner, { _id: s._id }, { copySentAt: new Date(), updatedAt: new Date() });
      notified++;
    }
  } else if (c.status === 'voided' && c.notifySigners) {
    const from = deps.transport.defaultFrom ? parseMailbox(deps.transport.defaultFrom) : null;
    for (const s of signers.filter((x) => x.invitedAt !== null && x.copySentAt === null)) {
      if (c.channels?.email !== false) {
        await deps.transport.send({
          from: from && 'mailbox' in from ? from.mailbox : { address: 'no-reply@localhost' },
          to: [{ address: s.email, name: s.name }],
          subject: `Cancelled: ${c.title}`,
          text: `The signing request for "${c.title}" was cancelled.${c.voidReason ? `\n\nReason: ${c.voidReason}` : ''}\n`,
        });
      }
      await em.nativeUpdate(ContractSigner, { _id: s._id }, { copySentAt: new Date(), updatedAt: new Date() });
      notified++;
    }
  }
  return { notified };
}
