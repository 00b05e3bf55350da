/**
 * Invitation delivery of a signing envelope (pure: the envelope service and the API share it).
 * Invitations are sent by the envelope workflow's `inviteSigners` activity, retried by Temporal with
 * the policy below; each signer's row shows how its invitation stands.
 */
import type { InvitationStatus, SignerRole, SignerStatus, SigningMode } from './contract.entity';

/**
 * The retry policy of the send activities, as contract-envelope.workflow.ts declares it (the unit
 * test keeps the two equal): 5 s, doubling, at most 1 h apart, for 26 h after the first attempt.
 */
export const INVITE_RETRY = {
  initialIntervalMs: 5_000,
  backoffCoefficient: 2,
  maximumIntervalMs: 3_600_000,
  scheduleToCloseMs: 26 * 3_600_000,
} as const;

/** Which attempt of the activity this is (Temporal's retry counter); 1 when called directly. */
export interface AttemptInfo {
  attempt: number;
  /** When the first attempt was scheduled (ms): the retries end a schedule-to-close time after it. */
  firstScheduledMs: number;
}

/**
 * When Temporal starts the attempt after `attempt` (1-based) failed at `now`, or null when the
 * retries are used up (the activity's schedule-to-close time has passed by then).
 */
export function nextAttemptAt(attempt: number, now: number, firstScheduledMs: number): Date | null {
  const { initialIntervalMs, backoffCoefficient, maximumIntervalMs, scheduleToCloseMs } = INVITE_RETRY;
  const delay = Math.min(maximumIntervalMs, initialIntervalMs * backoffCoefficient ** Math.max(0, attempt - 1));
  const at = now + delay;
  return at < firstScheduledMs + scheduleToCloseMs ? new Date(at) : null;
}

interface SignerLike {
  _id: string;
  role: SignerRole;
  status: SignerStatus;
  invitedAt?: Date | null;
  invitationStatus?: InvitationStatus | null;
}

/** The signers due an invitation now: parallel, every signer not yet invited; sequential, the next one. */
export function dueForInvitation<S extends SignerLike>(mode: SigningMode, signers: readonly S[]): S[] {
  const required = signers.filter((s) => s.role === 'signer');
  const notInvited = (s: S) => !s.invitedAt && s.status !== 'signed' && s.status !== 'declined';
  return mode === 'parallel'
    ? required.filter(notInvited)
    : required
        .filter((s) => s.status !== 'signed')
        .slice(0, 1)
        .filter(notInvited);
}

/**
 * A resend asked by the API (POST …/signers/:signerId/resend) that has not gone out yet: the signer was
 * invited, has not signed or declined, and nothing was sent to them since the request (a reminder counts).
 */
export function resendDue(s: SignerLike & { resendRequestedAt?: Date | null; lastNotifiedAt?: Date | null }): boolean {
  if (s.role !== 'signer' || !s.invitedAt || s.status === 'signed' || s.status === 'declined') return false;
  if (!s.resendRequestedAt) return false;
  return !s.lastNotifiedAt || s.resendRequestedAt.getTime() > s.lastNotifiedAt.getTime();
}

/** A signer invited before delivery was tracked counts as sent. */
export const invitationStatusOf = (s: SignerLike): InvitationStatus | null =>
  s.invitationStatus ?? (s.invitedAt ? 'sent' : null);

/** Counts of the signers' invitation states, and whether none of the due invitations got out. */
export function invitationSummary(signers: readonly SignerLike[]): {
  queued: number;
  sent: number;
  retrying: number;
  failed: number;
  noneDelivered: boolean;
} {
  const count = (st: InvitationStatus) => signers.filter((s) => invitationStatusOf(s) === st).length;
  const out = { queued: count('queued'), sent: count('sent'), retrying: count('retrying'), failed: count('failed') };
  return { ...out, noneDelivered: out.sent === 0 && out.retrying + out.failed > 0 };
}
