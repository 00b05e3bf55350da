/**
 * Changes to a sent envelope (issue 28): correct a signer, resend an invitation, extend the deadline.
 * Each one is committed first (row lock on the contract, like a signature), with its event; then the
 * envelope workflow is signalled (`envelopeChanged`) and re-reads the rows: it invites a corrected
 * signer with a fresh link, sends the resend, and moves its deadline timer to the new deadlineAt. The
 * outbox subscriber `contract-envelope-wake` signals again from the event while the engine is down.
 */
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { lockedEnvelope } from './contract-lock';
import { emitContractEvent, signerFields } from './contract-events';
import { inTransaction } from '../../platform/shared/tx';
import type { WorkflowPort } from '../../platform/workflow-port';
import { Contract, ContractSigner } from './contract.entity';
import { notifyEnvelope } from './contract-send.service';
import { getContract, getContractView } from './contracts.service';
import type { ContractView } from './contracts.views';
import { documentSha256 } from './document';

export interface EnvelopeChangeDeps {
  workflows: WorkflowPort;
  log: Logger;
}

/** A signer's invitation may be resent at most once per this interval (per signer). */
export const RESEND_INTERVAL_MS = 10 * 60_000;
/** An extended deadline may be at most this far ahead of now. */
export const MAX_EXTEND_DAYS = 365;

export interface SignerCorrection {
  name?: string;
  email?: string;
  phone?: string | null;
}

/** The contract locked for this transaction (one change or signature at a time), with its signers. */
async function locked(ctx: Ctx, id: string): Promise<{ c: Contract; signers: ContractSigner[] }> {
  const envelope = await lockedEnvelope(ctx.em, id);
  if (!envelope) throw notFound('contract');
  return envelope;
}

/** Changes are made only while the envelope is sent and its deadline has not passed. */
function assertSent(c: Contract, now: Date, what: string): void {
  if (c.status !== 'sent')
    throw new DomainError('invalid_state', `contract status is ${c.status}: ${what} only while it is sent`, {
      status: c.status,
    });
  if (c.deadlineAt && c.deadlineAt.getTime() <= now.getTime())
    throw new DomainError('invalid_state', `the contract's deadline has passed: ${what} only before it`, {
      status: 'expired',
    });
}

/**
 * One change to a sent envelope: `change` runs in a transaction on the locked contract and its signers and says
 * whether the envelope workflow has something new to do; if so it is signalled. Answers the contract as it is now.
 */
async function changeEnvelope(
  ctx: Ctx,
  id: string,
  deps: EnvelopeChangeDeps,
  change: (c: Contract, signers: ContractSigner[]) => Promise<{ wake: boolean }>,
): Promise<ContractView> {
  await getContract(ctx, id);
  const { c, wake } = await inTransaction(ctx, async () => {
    const { c, signers } = await locked(ctx, id);
    return { c, ...(await change(c, signers)) };
  });
  if (wake) await notifyEnvelope(deps, c.workflowId);
  ctx.em.clear();
  return getContractView(ctx, id);
}

const signerOf = (signers: readonly ContractSigner[], signerId: string): ContractSigner => {
  const s = signers.find((x) => x._id === signerId);
  if (!s) throw notFound('signer');
  return s;
};

/**
 * PATCH /contracts/:id/signers/:signerId: corrects name, e-mail or phone of a signer who has not opened
 * the link yet (nor signed or declined). The old link stops working at once (its hash is cleared); a
 * signer who had been due an invitation is queued for a new one, sent by the envelope workflow with a
 * fresh link. The document hash, which covers the signers, is recomputed.
 */
export async function correctSigner(
  ctx: Ctx,
  id: string,
  signerId: string,
  input: SignerCorrection,
  deps: EnvelopeChangeDeps,
  now = new Date(),
): Promise<ContractView> {
  return changeEnvelope(ctx, id, deps, async (c, signers) => {
    const s = signerOf(signers, signerId);
    assertSent(c, now, 'signers can be corrected');
    if (s.status === 'signed' || s.status === 'declined' || s.viewedAt)
      throw new DomainError(
        'invalid_state',
        `the signer has ${s.status === 'signed' ? 'signed' : s.status === 'declined' ? 'declined' : 'opened the link'}: a signer can be corrected only before that`,
        { signerStatus: s.status },
      );
    const next = {
      name: input.name ?? s.name,
      email: input.email !== undefined ? input.email.toLowerCase() : s.email,
      phone: input.phone !== undefined ? input.phone : s.phone,
    };
    const fields = (['name', 'email', 'phone'] as const).filter((f) => next[f] !== s[f]);
    if (!fields.length) return { wake: false };
    const reinvite = s.role === 'signer' && (s.invitedAt !== null || s.invitationStatus !== null);
    const moved = await ctx.em.nativeUpdate(
      ContractSigner,
      { _id: s._id, viewedAt: null, status: { $in: ['pending', 'invited'] } },
      {
        ...next,
        tokenHash: null,
        tokenIssuedAt: null,
        correctedAt: now,
        updatedAt: now,
        ...(reinvite
          ? {
              status: 'pending' as const,
              invitedAt: null,
              lastNotifiedAt: null,
              resendRequestedAt: null,
              invitationStatus: 'queued' as const,
              invitationError: null,
              invitationAttempts: 0,
              invitationNextAttemptAt: null,
            }
          : {}),
      },
    );
    if (!moved) throw new DomainError('invalid_state', 'the signer has opened the link meanwhile');
    // The document content names the signers: its hash follows the correction (earlier signatures keep their times).
    const corrected = { position: s.position, title: s.title, role: s.role, ...next } as ContractSigner;
    const hash = documentSha256(
      c,
      signers.map((x) => (x._id === s._id ? corrected : x)),
    );
    await ctx.em.nativeUpdate(Contract, { _id: c._id }, { documentSha256: hash, updatedAt: now });
    emitContractEvent(ctx, c, 'contract_signer_corrected', {
      ...signerFields({ _id: s._id, name: next.name }),
      fields: [...fields],
      reinvited: reinvite,
      correctedAt: now.toISOString(),
      documentSha256: hash,
    });
    return { wake: reinvite };
  });
}

/**
 * POST /contracts/:id/signers/:signerId/resend: sends an invited signer's invitation again with a fresh
 * link (the previous one stops working when it goes out), at most once per RESEND_INTERVAL_MS per
 * signer (429 with Retry-After before that). The envelope workflow sends it (inviteSigners).
 */
export async function resendInvitation(
  ctx: Ctx,
  id: string,
  signerId: string,
  deps: EnvelopeChangeDeps,
  now = new Date(),
): Promise<ContractView> {
  return changeEnvelope(ctx, id, deps, async (c, signers) => {
    const s = signerOf(signers, signerId);
    assertSent(c, now, 'invitations can be resent');
    if (s.role !== 'signer')
      throw new DomainError('invalid_state', 'a cc recipient gets no invitation (only the signed copy)');
    if (s.status === 'signed' || s.status === 'declined')
      throw new DomainError('invalid_state', `the signer has ${s.status}: there is nothing to resend`, {
        signerStatus: s.status,
      });
    if (!s.invitedAt)
      throw new DomainError(
        'invalid_state',
        s.invitationStatus
          ? `the invitation has not been delivered yet (${s.invitationStatus}): the envelope keeps trying`
          : 'the signer is not due an invitation yet (sequential: an earlier signer has not signed)',
        { invitationStatus: s.invitationStatus ?? null },
      );
    const earliest = s.resendRequestedAt ? s.resendRequestedAt.getTime() + RESEND_INTERVAL_MS : 0;
    if (earliest > now.getTime()) {
      const retryAfter = Math.ceil((earliest - now.getTime()) / 1000);
      throw new DomainError(
        'rate_limited',
        `an invitation to this signer was resent less than ${RESEND_INTERVAL_MS / 60_000} minutes ago; retry after ${retryAfter} s`,
        { retryAfter, nextResendAt: new Date(earliest).toISOString() },
        { 'Retry-After': String(retryAfter) },
      );
    }
    await ctx.em.nativeUpdate(
      ContractSigner,
      { _id: s._id },
      {
        resendRequestedAt: now,
        invitationStatus: 'queued',
        invitationError: null,
        invitationNextAttemptAt: null,
        updatedAt: now,
      },
    );
    emitContractEvent(ctx, c, 'contract_invitation_resent', { ...signerFields(s), requestedAt: now.toISOString() });
    return { wake: true };
  });
}

/** The checks of a new deadline against now and the current one (400 naming expiresAt). */
export function checkExtension(expiresAt: Date, current: Date, now: Date): void {
  const bad = (error: string) => validation(`expiresAt: ${error}`, [{ path: 'expiresAt', error }]);
  if (expiresAt.getTime() <= now.getTime()) throw bad('must be in the future');
  if (expiresAt.getTime() <= current.getTime())
    throw bad(`must be later than the current deadline (${current.toISOString()})`);
  if (expiresAt.getTime() > now.getTime() + MAX_EXTEND_DAYS * 86_400_000)
    throw bad(`must be at most ${MAX_EXTEND_DAYS} days from now`);
}

/**
 * POST /contracts/:id/extend { expiresAt }: moves a sent envelope's deadline later (in the future, later
 * than the current one, at most MAX_EXTEND_DAYS ahead). The workflow's deadline timer follows the
 * database's deadlineAt on its next re-read, which the signal triggers at once.
 */
export async function extendContract(
  ctx: Ctx,
  id: string,
  input: { expiresAt: Date },
  deps: EnvelopeChangeDeps,
  now = new Date(),
): Promise<ContractView> {
  return changeEnvelope(ctx, id, deps, async (c) => {
    assertSent(c, now, 'the deadline can be extended');
    if (!c.deadlineAt)
      throw new DomainError('invalid_state', 'the contract has no deadline: there is nothing to extend');
    checkExtension(input.expiresAt, c.deadlineAt, now);
    await ctx.em.nativeUpdate(
      Contract,
      { _id: c._id, status: 'sent' },
      { deadlineAt: input.expiresAt, updatedAt: now },
    );
    emitContractEvent(ctx, c, 'contract_extended', {
      previousDeadlineAt: c.deadlineAt.toISOString(),
      deadlineAt: input.expiresAt.toISOString(),
    });
    return { wake: true };
  });
}
