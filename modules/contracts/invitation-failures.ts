import type { EntityManager } from '@mikro-orm/postgresql';
import { emit } from '../../domain/outbox/emit';
import { Contract, ContractSigner, type InvitationStatus } from './contract.entity';
import { invitationSummary, nextAttemptAt, type AttemptInfo } from './invitations';

export interface InvitationFailure {
  signer: ContractSigner;
  error: unknown;
}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/**
 * Records failed invitations in one transaction: each signer's delivery (`retrying` with the next
 * attempt, or `failed` when Temporal will not try again), the contract's lastError (saying when no
 * invitation got out at all), and a `contract_invitation_failed` event when a signer's delivery
 * state changes (first failure, retries used up), not on every retry.
 */
export async function recordInvitationFailures(
  em: EntityManager,
  state: { c: Contract; signers: readonly ContractSigner[] },
  failures: readonly InvitationFailure[],
  sentNow: ReadonlySet<string>,
  attempt: AttemptInfo,
): Promise<void> {
  const { c } = state;
  const now = new Date();
  const next = nextAttemptAt(attempt.attempt, now.getTime(), attempt.firstScheduledMs);
  const status: InvitationStatus = next ? 'retrying' : 'failed';
  const failedIds = new Set(failures.map((f) => f.signer._id));
  const after = state.signers.map((s) => ({
    ...s,
    invitationStatus: failedIds.has(s._id) ? status : sentNow.has(s._id) ? ('sent' as const) : s.invitationStatus,
  }));
  const summary = invitationSummary(after);
  const firstReason = reasonOf(failures[0]!.error);
  const lastError = summary.noneDelivered
    ? `no invitation could be delivered (${summary.retrying} retrying, ${summary.failed} failed${next ? `; next attempt at ${next.toISOString()}` : ''}): ${firstReason}`
    : `invitation to signer ${failures[0]!.signer._id} could not be sent: ${firstReason}`;
  await em.transactional(async (tx) => {
    for (const { signer: s, error } of failures) {
      const reason = reasonOf(error);
      // A first invitation not delivered meanwhile, or a resend (issue 28) still queued or retrying.
      await tx.nativeUpdate(
        ContractSigner,
        { _id: s._id, $or: [{ invitedAt: null }, { invitationStatus: { $in: ['queued', 'retrying'] } }] },
        {
          invitationStatus: status,
          invitationError: reason,
          invitationAttempts: s.invitationAttempts + 1,
          invitationNextAttemptAt: next,
          updatedAt: now,
        },
      );
      if (s.invitationStatus === status) continue;
      emit(
        { em: tx, actor: { workspaceId: c.workspaceId, userId: c.createdBy, role: 'owner', scopes: [] } },
        {
          type: 'contract_invitation_failed',
          entityType: 'contract',
          entityId: c._id,
          payload: {
            contractId: c._id,
            title: c.title,
            signerId: s._id,
            signerName: s.name,
            invitationStatus: status,
            lastError: reason,
            attempts: s.invitationAttempts + 1,
            nextAttemptAt: next?.toISOString() ?? null,
            noneDelivered: summary.noneDelivered,
          },
        },
      );
    }
    await tx.nativeUpdate(Contract, { _id: c._id }, { lastError: lastError.slice(0, 2000), updatedAt: now });
  });
}
