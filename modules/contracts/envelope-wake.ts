/**
 * The durable wake-up of envelope workflows. A signature, a decline, a void, a signer correction, a resend
 * or an extension is committed with its event; the API signals the envelope workflow right after (the fast
 * path), but that signal is lost when the engine is down at that moment. This outbox subscriber signals
 * again from the event: a failure parks the delivery and the outbox retries it (released as soon as a
 * sibling delivery works, recovery.ts), so the workflow re-reads the contract within seconds of the
 * engine's return instead of at its periodic re-read (hours). A second signal only costs one re-read; a
 * finished or not yet started workflow needs none (it reads the contract when it starts).
 */
import type { WorkflowPort } from '../../platform/workflow-port';
import { eventNames } from '../../platform/outbox/event-names';
import type { OutboxEventRecord, Subscriber } from '../../platform/outbox/subscriber';
import { contractEnvelopeKind } from './contract-envelope.kind';
import { envelopeChangedSignal } from './contract-envelope.messages';

export const ENVELOPE_WAKE_EVENTS = eventNames(
  'contract_signed',
  'contract_declined',
  'contract_voided',
  // Issue 28: a corrected signer is invited again, a resend is sent, an extended deadline moves the timer.
  'contract_signer_corrected',
  'contract_invitation_resent',
  'contract_extended',
);

export function envelopeWakeSubscriber(deps: { workflows: WorkflowPort }): Subscriber {
  return {
    name: 'contract-envelope-wake',
    handles: (e: OutboxEventRecord) => e.entityType === 'contract' && ENVELOPE_WAKE_EVENTS.includes(e.type),
    async handle(e) {
      await deps.workflows.signal(contractEnvelopeKind.workflowId(e.workspaceId, e.entityId), envelopeChangedSignal);
    },
  };
}
