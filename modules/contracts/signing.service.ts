/**
 * The signer's side, outside /api/v1: the link token is the capability. It is looked up by its
 * SHA-256, belongs to one signer and works only while the envelope is sent (the final-copy link
 * serves the signed PDF once accepted). A signature is committed first, then the workflow is told.
 */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound, validation } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { lockedEnvelope } from './contract-lock';
import { emitContractEvent, signerFields } from './contract-events';
import type { WorkflowPort } from '../../platform/workflow-port';
import { Contract, ContractDocument, ContractSigner } from './contract.entity';
import { notifyEnvelope } from './contract-send.service';
import { documentContent } from './document';
import type { DeclineResultView, SignerDocumentView, SignResultView } from './contracts.views';
import { hashToken, isTokenShape } from './tokens';

export const MAX_SIGNATURE_IMAGE_BYTES = 2 * 1024 * 1024;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export interface SignerClient {
  ip: string | null;
  userAgent: string | null;
}
export interface SigningDeps {
  orm: MikroORM;
  workflows: WorkflowPort;
  log: Logger;
}

interface Found {
  em: EntityManager;
  contract: Contract;
  signer: ContractSigner;
}

const gone = (status: string) =>
  new DomainError('gone', `this signing link no longer works: the contract is ${status}`, { status });

/** The signer of a token (404 for an unknown token, the same answer as a malformed one). */
async function findByToken(orm: MikroORM, token: string): Promise<Found> {
  if (!isTokenShape(token)) throw notFound('signing link');
  const rows = await orm.em
    .fork()
    .getConnection()
    .execute<{ workspace_id: string; id: string; contract_id: string }[]>(
      'select workspace_id, id, contract_id from contract_signers where token_hash = ?',
      [hashToken(token)],
    );
  const row = rows[0];
  if (!row) throw notFound('signing link');
  const em = forkForWorkspace(orm.em, row.workspace_id);
  const [contract, signer] = await Promise.all([
    em.findOne(Contract, { _id: row.contract_id }),
    em.findOne(ContractSigner, { _id: row.id }),
  ]);
  if (!contract || !signer) throw notFound('signing link');
  return { em, contract, signer };
}

const assertOpen = (c: Contract) => {
  if (c.status !== 'sent') throw gone(c.status);
  // The deadline passed but the envelope's timer has not run yet (worker busy or down): already closed.
  if (c.deadlineAt && c.deadlineAt.getTime() <= Date.now()) throw gone('expired');
};

/** Whether it is this signer's turn (sequential: every earlier signer has signed). */
function turnOf(c: Contract, signer: ContractSigner, all: readonly ContractSigner[]): boolean {
  if (c.mode === 'parallel') return true;
  return all.filter((s) => s.role === 'signer' && s.position < signer.position).every((s) => s.status === 'signed');
}

/** GET: the document as the signer sees it; the first view is recorded. */
export async function viewAsSigner(orm: MikroORM, token: string): Promise<SignerDocumentView> {
  const { em, contract, signer } = await findByToken(orm, token);
  assertOpen(contract);
  const all = await em.find(ContractSigner, { contractId: contract._id }, { orderBy: { position: 'asc' } });
  if (signer.role === 'signer' && !signer.viewedAt) {
    const now = new Date();
    // Only through the current link: a correction that cleared it meanwhile wins (the view is not recorded).
    const hash = hashToken(token);
    await em.nativeUpdate(
      ContractSigner,
      { _id: signer._id, viewedAt: null, tokenHash: hash },
      { viewedAt: now, updatedAt: now },
    );
    await em.nativeUpdate(
      ContractSigner,
      { _id: signer._id, tokenHash: hash, status: { $in: ['pending', 'invited'] } },
      { status: 'viewed', updatedAt: now },
    );
    signer.viewedAt = now;
    if (signer.status === 'pending' || signer.status === 'invited') signer.status = 'viewed';
  }
  const canSign =
    signer.role === 'signer' &&
    signer.status !== 'signed' &&
    signer.status !== 'declined' &&
    turnOf(contract, signer, all);
  return {
    document: documentContent(contract, all),
    documentSha256: contract.documentSha256 ?? null,
    status: contract.status,
    deadlineAt: contract.deadlineAt?.toISOString() ?? null,
    signer: {
      name: signer.name,
      role: signer.role,
      status: signer.status,
      signedAt: signer.signedAt?.toISOString() ?? null,
      canSign,
    },
  };
}

export interface SignInput {
  typedName?: string;
  signatureImage?: string;
}

function checkImage(dataUrl: string): void {
  const m = /^data:image\/png;base64,([A-Za-z0-9+/=\s]+)$/.exec(dataUrl);
  if (!m)
    throw validation('signatureImage: must be a data:image/png;base64 URL', [
      { path: 'signatureImage', error: 'must be a data:image/png;base64 URL' },
    ]);
  const bytes = Buffer.from(m[1]!, 'base64');
  if (bytes.length > MAX_SIGNATURE_IMAGE_BYTES)
    throw new DomainError('too_large', 'signatureImage: the image is larger than 2 MB');
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_MAGIC))
    throw validation('signatureImage: is not a PNG image', [{ path: 'signatureImage', error: 'is not a PNG image' }]);
}

/** The party of a link who signs; a cc recipient only receives a copy (neither signs nor declines). */
async function findSigningParty(orm: MikroORM, token: string): Promise<Found> {
  const found = await findByToken(orm, token);
  if (found.signer.role !== 'signer')
    throw new DomainError('invalid_state', 'this recipient receives a copy and does not sign');
  return found;
}

/** The envelope locked for this transaction, all its signers, and the found one as it is now. */
async function lockedState(
  em: EntityManager,
  found: Found,
): Promise<{ c: Contract; all: ContractSigner[]; signer: ContractSigner }> {
  const contractId = found.contract._id;
  // One signature at a time per envelope: the turn check and the "last one" decision see committed state.
  const envelope = await lockedEnvelope(em, contractId);
  if (!envelope) throw notFound('signing link');
  const { c, signers: all } = envelope;
  return { c, all, signer: all.find((s) => s._id === found.signer._id)! };
}

const ctxOf = (em: EntityManager, c: Contract): Ctx => ({
  em,
  actor: { workspaceId: c.workspaceId, userId: c.createdBy, role: 'owner', scopes: [] },
});

/** POST sign: idempotent (a signer who signed gets the same answer); the wrong turn is 409. */
export async function signAsSigner(
  deps: SigningDeps,
  token: string,
  input: SignInput,
  client: SignerClient,
): Promise<SignResultView> {
  if (!input.typedName && !input.signatureImage)
    throw validation('typedName or signatureImage is required', [
      { path: 'typedName', error: 'typedName or signatureImage is required' },
    ]);
  if (input.signatureImage) checkImage(input.signatureImage);
  const found = await findSigningParty(deps.orm, token);
  const result = await found.em.transactional(async (em) => {
    const { c, all, signer } = await lockedState(em, found);
    if (signer.status === 'signed') return { signer, replayed: true, contract: c, wake: false };
    // The link was replaced meanwhile (a correction, a resend or a reminder under the contract lock).
    if (signer.tokenHash !== hashToken(token)) throw notFound('signing link');
    assertOpen(c);
    if (signer.status === 'declined') throw new DomainError('invalid_state', 'you have declined this contract');
    if (!turnOf(c, signer, all))
      throw new DomainError('invalid_state', 'not your turn yet: an earlier signer has not signed', {
        code: 'not_your_turn',
      });
    const now = new Date();
    Object.assign(signer, {
      status: 'signed',
      signedAt: now,
      viewedAt: signer.viewedAt ?? now,
      signatureType: input.signatureImage ? 'drawn' : 'typed',
      signatureName: input.typedName ?? signer.name,
      signatureImage: input.signatureImage ?? null,
      ip: client.ip?.slice(0, 64) ?? null,
      userAgent: client.userAgent?.slice(0, 500) ?? null,
      updatedAt: now,
    });
    emitContractEvent(ctxOf(em, c), c, 'contract_signed', {
      ...signerFields(signer),
      order: signer.position,
      signedAt: now.toISOString(),
    });
    // The workflow has work only when someone is next (sequential) or nobody is left (completion);
    // other parallel signatures need no wake-up (every later re-read sees them anyway).
    const wake = c.mode === 'sequential' || all.every((s) => s.role !== 'signer' || s.status === 'signed');
    return { signer, replayed: false, contract: c, wake };
  });
  if (result.wake) await notifyEnvelope(deps, result.contract.workflowId);
  return { status: 'signed', signedAt: result.signer.signedAt!.toISOString(), replayed: result.replayed };
}

/** POST decline: the envelope ends declined (one signer's no ends it for all). */
export async function declineAsSigner(
  deps: SigningDeps,
  token: string,
  input: { reason?: string | null },
  client: SignerClient,
): Promise<DeclineResultView> {
  const found = await findSigningParty(deps.orm, token);
  const result = await found.em.transactional(async (em) => {
    const { c, signer } = await lockedState(em, found);
    if (signer.status === 'declined') return { signer, contract: c, replayed: true };
    if (signer.tokenHash !== hashToken(token)) throw notFound('signing link');
    assertOpen(c);
    if (signer.status === 'signed') throw new DomainError('invalid_state', 'you have already signed this contract');
    const now = new Date();
    Object.assign(signer, {
      status: 'declined',
      declinedAt: now,
      declineReason: input.reason ?? null,
      ip: client.ip?.slice(0, 64) ?? null,
      userAgent: client.userAgent?.slice(0, 500) ?? null,
      updatedAt: now,
    });
    await em.nativeUpdate(
      Contract,
      { _id: c._id, status: 'sent' },
      { status: 'declined', declinedAt: now, updatedAt: now },
    );
    emitContractEvent(ctxOf(em, c), c, 'contract_declined', { ...signerFields(signer), reason: input.reason ?? null });
    return { signer, contract: c, replayed: false };
  });
  if (!result.replayed) await notifyEnvelope(deps, result.contract.workflowId);
  return { status: 'declined', declinedAt: result.signer.declinedAt!.toISOString() };
}

/** GET …/document: the signed PDF for any recipient of a completed envelope. */
export async function signedPdfForRecipient(orm: MikroORM, token: string): Promise<Buffer> {
  const { em, contract } = await findByToken(orm, token);
  if (contract.status !== 'accepted')
    throw contract.status === 'sent'
      ? notFound('signed document (not every signer has signed yet)')
      : gone(contract.status);
  const doc = await em.findOne(ContractDocument, { contractId: contract._id });
  if (!doc) throw notFound('signed document');
  return Buffer.from(doc.pdf);
}
