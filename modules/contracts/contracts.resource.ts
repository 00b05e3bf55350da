import { defineResource } from '../../platform/shared/resource';
import { getContract } from './contracts.service';
import { Contract, ContractDocument, ContractSigner } from './contract.entity';

// The public view (serializeContract) needs the signers, so it is not a row function.
export const contractResource = defineResource<Contract>({
  kind: 'contract',
  collection: 'contracts',
  entity: Contract,
  ownedEntities: [ContractSigner, ContractDocument],
  load: getContract,
  parents: { companyRef: 'company', personRef: 'person', dealRef: 'deal' },
});
