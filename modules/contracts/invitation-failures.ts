import type { EntityManager } from '@mikro-orm/postgresql';
import { lockContractRow } from './contract-lock';
import { emitContractEvent, signerFields } from './contract-events';
import { Contract, ContractSigner, type InvitationStatus } from './contract.entity';
import { invitationSummary, nextAttemptAt, type AttemptInfo } from './invitations';

export interface InvitationFailure {
  signer: ContractSigner;
  error: unknown;
}

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 1000);

/**
 * The contract's lastError as its signers' committed rows say (issue 29): null when no invitation is
 * retrying or failed, else why. Derived from the rows, under a lock of the contract row, so an attempt
 * that finishes late (its failure recorded after a later attempt delivered) cannot leave a stale error.
 */
export async function refreshInvitationError(tx: EntityManager, c: Contract): Promise<void> {
  await lockContractRow(tx, c._id);
  const rows = await tx.find(ContractSigner, { contractId: c._id }, { orderBy: { position: 'asc' }, refresh: true });
  const summary = invitationSummary(rows);
  const failing = rows.filter((s) => s.invitationStatus === 'retrying' || s.invitationStatus === 'failed');
  let lastError: string | null = null;
  if (failing.length) {
    const first = failing[0]!;
    const reason = first.invitationError ?? 'unknown error';
    const next = failing
      .map((s) => s.invitationNextAttemptAt?.getTime())
      .filter((t): t is number => t !== undefined)
      .sort((a, b) => a - b)[0];
    lastError = summary.noneDelivered
      ? `no invitation could be delivered (${summary.retrying} retrying, ${summary.failed} failed${next !== undefined ? `; next attempt at ${new Date(next).toISOString()}` : ''}): ${reason}`
      : `invitation to signer ${first._id} could not be sent: ${reason}`;
  }
  // Clearing writes only when there is an error to clear.
  const already = lastError === null ? { lastError: { $ne: null } } : {};
  await tx.nativeUpdate(
    Contract,
    { _id: c._id, ...already },
    { lastError: lastError?.slice(0, 2000) ?? null, updatedAt: new Date() },
  );
}

/**
 * Records failed invitations in one transaction: each signer's delivery (`retrying` with the next
 * attempt, or `failed` when Temporal will not try again), the contract's lastError (saying when no
 * invitation got out at all), and a `contract_invitation_failed` event when a signer's delivery
 * state changes (first failure, retries used up), not on every retry. A signer delivered meanwhile (by a
 * later attempt) keeps `sent`: its row is not moved, and no event says otherwise.
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
  await em.transactional(async (tx) => {
    await lockContractRow(tx, c._id);
    for (const { signer: s, error } of failures) {
      const reason = reasonOf(error);
      // A first invitation not delivered meanwhile, or a resend (issue 28) still queued or retrying.
      const moved = await tx.nativeUpdate(
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
      if (!moved || s.invitationStatus === status) continue;
      emitContractEvent(
        { em: tx, actor: { workspaceId: c.workspaceId, userId: c.createdBy, role: 'owner', scopes: [] } },
        c,
        'contract_invitation_failed',
        {
          ...signerFields(s),
          invitationStatus: status,
          lastError: reason,
          attempts: s.invitationAttempts + 1,
          nextAttemptAt: next?.toISOString() ?? null,
          noneDelivered: summary.noneDelivered,
        },
      );
    }
    await refreshInvitationError(tx, c);
  });
}
