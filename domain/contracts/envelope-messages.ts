/** Messages of the contract envelope workflow. Pure: the workflow, the API and activities import it. */

/** "Something changed in the database" (a signature, a decline, a void): the workflow re-reads state. */
export const ENVELOPE_CHANGED_SIGNAL = 'envelopeChanged';

/** Workflow input: ids and times only; never a token, an address or the document. */
export interface ContractEnvelopeInput {
  workspaceId: string;
  contractId: string;
  deadlineAt: string | null;
  /** Between reminders to signers who have not signed; null = no reminders. */
  reminderIntervalMs: number | null;
}

/** What one reconcile step found (advanceEnvelope). */
export interface EnvelopeStep {
  status: 'draft' | 'sent' | 'accepted' | 'declined' | 'expired' | 'voided' | 'missing';
  /** Signers whose invitation is due now (sequential: the next one; parallel: all not yet invited). */
  invite: string[];
}
