/**
 * The contract envelope workflow's contract, declared once: its input, its signal and its query (the descriptors
 * the workflow registers and the API sends: modules/contracts/contract-envelope.workflow.ts, contracts.service.ts).
 * Workflow-safe: imports only @temporalio/workflow and types; the workflow, the API and activities import
 * it. The name is on the wire (histories, runs in flight): never rename it.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** Workflow input: ids and times only; never a token, an address or the document. */
export interface ContractEnvelopeInput {
  workspaceId: string;
  contractId: string;
  deadlineAt: string | null;
  /** Between reminders to signers who have not signed; null = no reminders. */
  reminderIntervalMs: number | null;
}

/**
 * "Something changed in the database" (a signature, a decline, a void, a corrected signer, a resend, an
 * extended deadline): the workflow re-reads state.
 */
export const envelopeChangedSignal = defineSignal('envelopeChanged');

/** The deadline the workflow's timer is set to now (ISO; null = none): moves when the envelope is extended. */
export const envelopeDeadlineQuery = defineQuery<{ deadlineAt: string | null }>('envelopeDeadline');

/** What one reconcile step found (advanceEnvelope). */
export interface EnvelopeStep {
  status: 'draft' | 'sent' | 'accepted' | 'declined' | 'expired' | 'voided' | 'missing';
  /** Signers whose invitation is due now (sequential: the next one; parallel: all not yet invited). */
  invite: string[];
  /**
   * The envelope's deadline as the database has it now (ISO; null = none): an extension moves it. Absent
   * in results recorded before issue 28 (the workflow then keeps its input's deadline).
   */
  deadlineAt?: string | null;
}
