/**
 * The contract envelope workflow's contract, declared once: its input and its signal (the descriptor
 * the workflow registers and the API sends: modules/contracts/contract-envelope.workflow.ts, contracts.service.ts).
 * Workflow-safe: imports only @temporalio/workflow and types; the workflow, the API and activities import
 * it. The name is on the wire (histories, runs in flight): never rename it.
 */
import { defineSignal } from '@temporalio/workflow';

/** Workflow input: ids and times only; never a token, an address or the document. */
export interface ContractEnvelopeInput {
  workspaceId: string;
  contractId: string;
  deadlineAt: string | null;
  /** Between reminders to signers who have not signed; null = no reminders. */
  reminderIntervalMs: number | null;
}

/** "Something changed in the database" (a signature, a decline, a void): the workflow re-reads state. */
export const envelopeChangedSignal = defineSignal('envelopeChanged');

/** What one reconcile step found (advanceEnvelope). */
export interface EnvelopeStep {
  status: 'draft' | 'sent' | 'accepted' | 'declined' | 'expired' | 'voided' | 'missing';
  /** Signers whose invitation is due now (sequential: the next one; parallel: all not yet invited). */
  invite: string[];
}
