/**
 * The contract envelope workflow kind (domain/workflow-kinds.ts `defineWorkflowKind`), declared in its module
 * and named by the module's `workflows` (contracts.module.ts): adding a module with a workflow edits no shared
 * registry.
 */
import { defineWorkflowKind } from '../../platform/workflow-kinds';
import type { ContractEnvelopeInput } from './contract-envelope.messages';

export interface ContractEnvelopeMeta {
  workspaceId: string;
  contractId: string;
  mode: string;
  /** Recipients (signers and cc). */
  signers: number;
}

/**
 * One signing envelope per sent contract (`contract-envelope:<workspaceId>:<contractId>`); ids only, no names or
 * addresses.
 */
export const contractEnvelopeKind = defineWorkflowKind<ContractEnvelopeMeta, ContractEnvelopeInput>({
  kind: 'contract-envelope',
  workflowType: 'contractEnvelopeWorkflow',
  // The second one is an extension (issue 28): a patch marker and the timer moved by the database's deadline.
  replayFixtures: ['contract-envelope.history.json', 'contract-envelope-extended.history.json'],
  searchAttributes: (m) => ({ CrmWorkspaceId: m.workspaceId, CrmEntityType: 'contract', CrmEntityId: m.contractId }),
  memo: (m) => ({ workspaceId: m.workspaceId, contractId: m.contractId, mode: m.mode, signers: m.signers }),
  summary: (m) =>
    `Contract envelope ${m.contractId} · ${m.mode} · ${m.signers} ${m.signers === 1 ? 'recipient' : 'recipients'}`,
});
