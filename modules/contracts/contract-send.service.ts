/**
 * Sending, voiding and waking a contract's envelope (split from contracts.service.ts: create, read, list, documents).
 * Send is durable intake (start-queue.ts starts the workflow); void and notify signal the running envelope.
 */
import type { Ctx } from '../../platform/context';
import { DomainError, validation } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import type { EmailTransport, SmsGateway } from '../messaging';
import { emitContractEvent } from './contract-events';
import { inTransaction } from '../../platform/shared/tx';
import { contractEnvelopeKind } from './contract-envelope.kind';
import type { WorkflowPort } from '../../platform/workflow-port';
import { notifyQueued, queuedRuns } from '../../platform/intake/queue-signal';
import { Contract, ContractSigner } from './contract.entity';
import { contractStatusTransitions } from './contracts.rules';
import { documentSha256 } from './document';
import type { EidProvider } from './eid';
import { envelopeChangedSignal } from './contract-envelope.messages';
import { dueForInvitation } from './invitations';
import type { ContractView } from './contracts.views';
import { signersOf, getContract, getContractView, DEFAULT_REMINDER_HOURS } from './contracts.service';

export interface SendContractInput {
  channels?: { email?: boolean; sms?: boolean };
  message?: string | null;
  reminderIntervalHours?: number | null;
}
export interface SendDeps {
  transport: EmailTransport;
  gateway: SmsGateway;
  eid: EidProvider;
  /** Tests only (CONTRACT_REMINDER_INTERVAL_MS): replaces the reminder interval. */
  reminderIntervalMs?: number;
}

/**
 * POST /contracts/:id/send: draft → sent, its event and its queued envelope start in one commit; the worker's
 * starter starts the envelope workflow (start-queue.ts).
 */
export async function sendContract(
  ctx: Ctx,
  id: string,
  input: SendContractInput,
  deps: SendDeps,
  now = new Date(),
): Promise<ContractView> {
  const c = await getContract(ctx, id);
  contractStatusTransitions.assert(c.status, 'sent');
  const signers = (await signersOf(ctx, [c._id])).get(c._id) ?? [];
  if (c.signatureLevel === 'eid') deps.eid.assertConfigured();
  if (c.deadlineAt && c.deadlineAt.getTime() <= now.getTime())
    throw validation('deadlineAt: has already passed; create a new contract with a later deadline');
  const channels = { email: input.channels?.email ?? true, sms: input.channels?.sms ?? false };
  if (!channels.email && !channels.sms) throw validation('channels: at least one of email and sms must be true');
  if (channels.email) deps.transport.assertConfigured?.();
  if (channels.sms) {
    deps.gateway.assertConfigured?.();
    if (!channels.email) {
      const missing = signers.find((s) => !s.phone);
      if (missing) throw validation(`channels: sms only, but signer ${missing.position} has no phone`);
    }
  }
  const interval =
    input.reminderIntervalHours === null
      ? null
      : (deps.reminderIntervalMs ?? Math.round((input.reminderIntervalHours ?? DEFAULT_REMINDER_HOURS) * 3_600_000));
  const workflowId = contractEnvelopeKind.workflowId(ctx.actor.workspaceId, c._id);
  // One commit: the contract sent, its event, and its envelope queued for the worker's starter
  // (start-queue.ts), which starts the workflow, also after an engine outage. No Temporal call here.
  await inTransaction(ctx, async () => {
    const moved = await ctx.em.nativeUpdate(
      Contract,
      { _id: c._id, status: 'draft' },
      {
        status: 'sent',
        sentAt: now,
        channels,
        message: input.message ?? null,
        reminderIntervalMs: interval,
        documentSha256: documentSha256(c, signers),
        workflowId,
        lastError: null,
        startQueued: true,
        startLeaseUntil: null,
        updatedAt: now,
      },
    );
    if (!moved) throw new DomainError('invalid_state', 'contract status is no longer draft');
    // The first invitations are queued with the send (the envelope workflow sends them).
    const due = dueForInvitation(c.mode, signers).map((s) => s._id);
    if (due.length)
      await ctx.em.nativeUpdate(ContractSigner, { _id: { $in: due } }, { invitationStatus: 'queued', updatedAt: now });
    emitContractEvent(ctx, c, 'contract_sent', {
      mode: c.mode,
      signers: signers.filter((s) => s.role === 'signer').length,
    });
    await notifyQueued(ctx.em);
  });
  queuedRuns.emit('queued', ctx.actor.workspaceId);
  ctx.em.clear();
  return getContractView(ctx, c._id);
}

/**
 * POST /contracts/:id/void: sent → voided; links stop working at once; the workflow is told and notifies signers when
 * asked.
 */
export async function voidContract(
  ctx: Ctx,
  id: string,
  input: { reason?: string | null; notifySigners?: boolean },
  deps: { workflows: WorkflowPort; log: Logger },
  now = new Date(),
): Promise<ContractView> {
  const c = await getContract(ctx, id);
  contractStatusTransitions.assert(c.status, 'voided');
  await inTransaction(ctx, async () => {
    const moved = await ctx.em.nativeUpdate(
      Contract,
      { _id: c._id, status: 'sent' },
      {
        status: 'voided',
        voidedAt: now,
        voidReason: input.reason ?? null,
        notifySigners: input.notifySigners ?? false,
        startQueued: false,
        updatedAt: now,
      },
    );
    if (!moved) throw new DomainError('invalid_state', 'contract status is no longer sent');
    emitContractEvent(ctx, c, 'contract_voided', { reason: input.reason ?? null });
  });
  await notifyEnvelope(deps, c.workflowId);
  ctx.em.clear();
  return getContractView(ctx, c._id);
}

/** Wakes the envelope workflow, which re-reads the database; a lost signal is caught by its periodic re-read. */
export async function notifyEnvelope(
  deps: { workflows: WorkflowPort; log: Logger },
  workflowId: string | null | undefined,
): Promise<void> {
  if (!workflowId) return;
  await deps.workflows
    .signal(workflowId, envelopeChangedSignal)
    .catch((err: unknown) =>
      deps.log.warn({ err, workflowId }, 'contract envelope: signal failed; the workflow re-reads on its next timer'),
    );
}
