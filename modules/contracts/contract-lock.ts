import type { EntityManager } from '@mikro-orm/postgresql';
import { Contract, ContractSigner } from './contract.entity';

/**
 * Locks the contract row first in a transaction that writes its signers' rows: every writer of an envelope (the API's
 * changes, signing, expiry, the invitation activities) takes the contract's lock before a signer's, so two of them
 * never wait on each other in opposite order (a deadlock, which Postgres ends by failing one of them).
 */
export async function lockContractRow(tx: EntityManager, contractId: string): Promise<void> {
  await tx.execute('select id from contracts where id = ? for update', [contractId]);
}

/**
 * The envelope locked for this transaction (one change, signature or expiry at a time): the contract and all its
 * signers in order, read after the lock so each decision sees committed state; null when the contract is gone.
 */
export async function lockedEnvelope(
  tx: EntityManager,
  contractId: string,
): Promise<{ c: Contract; signers: ContractSigner[] } | null> {
  await lockContractRow(tx, contractId);
  const c = await tx.findOne(Contract, { _id: contractId }, { refresh: true });
  if (!c) return null;
  const signers = await tx.find(ContractSigner, { contractId }, { orderBy: { position: 'asc' }, refresh: true });
  return { c, signers };
}
