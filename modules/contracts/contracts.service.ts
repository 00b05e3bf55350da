import type { Ctx } from '../../platform/context';
import { assertRefs } from '../timeline';
import { Offer, OfferTemplate } from '../offers';
import { notFound, validation } from '../../platform/errors';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import {
  Contract,
  ContractDocument,
  ContractSigner,
  type ContractStatus,
  type SignatureLevel,
  type SignerRole,
  type SigningMode,
} from './contract.entity';
import { fromMinor, lineView, priceLines, type LineInput } from './money';
import { invitationStatusOf, invitationSummary } from './invitations';
import type { ContractAuditTrailView, ContractView } from './contracts.views';
import type { EntityName } from '@mikro-orm/core';
import { findRowById } from '../../platform/orm/lean-rows';

export const MAX_SIGNERS = 20;
export const DEFAULT_REMINDER_HOURS = 72;

export interface SignerInput {
  name: string;
  email: string;
  phone?: string | null;
  title?: string | null;
  role?: SignerRole;
}
export interface CreateContractInput {
  title: string;
  templateId?: string | null;
  companyRef?: string | null;
  personRef?: string | null;
  dealRef?: string | null;
  sourceOfferId?: string | null;
  signers: SignerInput[];
  mode?: SigningMode;
  signatureLevel?: SignatureLevel;
  deadlineAt?: Date | null;
  contract?: { startDate?: string | null; endDate?: string | null } | null;
  lineItems?: LineInput[];
}

/** A signer's role and progress, in the order both the contract view and the audit trail list them. */
const SIGNER_PROGRESS = ['role', 'status', 'invitedAt', 'viewedAt', 'signedAt', 'declinedAt', 'declineReason'] as const;
const SIGNER_FIELDS = [
  '_id',
  'name',
  'email',
  'phone',
  'title',
  ...SIGNER_PROGRESS,
  'remindersSent',
  'correctedAt',
  'resendRequestedAt',
] as const;
const CONTRACT_FIELDS = [
  '_id',
  'title',
  'templateId',
  'companyRef',
  'personRef',
  'dealRef',
  'sourceOfferId',
  'status',
  'mode',
  'signatureLevel',
  'deadlineAt',
  'channels',
  'message',
  'documentSha256',
  'workflowId',
  'sentAt',
  'completedAt',
  'declinedAt',
  'expiredAt',
  'voidedAt',
  'voidReason',
  'lastError',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;

const invitationOf = (s: ContractSigner): ContractView['signers'][number]['invitation'] => ({
  status: invitationStatusOf(s),
  ...plainOf(
    { lastError: s.invitationError, attempts: s.invitationAttempts ?? 0, nextAttemptAt: s.invitationNextAttemptAt },
    ['lastError', 'attempts', 'nextAttemptAt'],
  ),
});

/** The API view: envelope status and per-signer progress; never a token or its hash, never a signature image. */
export function serializeContract(c: Contract, signers: readonly ContractSigner[]): ContractView {
  const required = signers.filter((s) => s.role === 'signer');
  return {
    ...plainOf(c, CONTRACT_FIELDS),
    kind: 'contract',
    contract: c.term ?? null,
    lineItems: c.lineItems.map(lineView),
    subtotal: fromMinor(c.subtotalMinor),
    vatAmount: fromMinor(c.vatMinor),
    total: fromMinor(c.totalMinor),
    reminderIntervalHours: c.reminderIntervalMs ? c.reminderIntervalMs / 3_600_000 : null,
    signers: signers.map((s) => ({ ...plainOf(s, SIGNER_FIELDS), order: s.position, invitation: invitationOf(s) })),
    progress: { signed: required.filter((s) => s.status === 'signed').length, required: required.length },
    invitations: invitationSummary(signers),
  };
}

export async function signersOf(ctx: Ctx, contractIds: readonly string[]): Promise<Map<string, ContractSigner[]>> {
  const out = new Map<string, ContractSigner[]>(contractIds.map((id) => [id, []]));
  if (!contractIds.length) return out;
  const rows = await ctx.em.find(
    ContractSigner,
    { contractId: { $in: [...contractIds] } },
    { orderBy: { contractId: 'asc', position: 'asc' } },
  );
  for (const s of rows) out.get(s.contractId)?.push(s);
  return out;
}

export async function createContract(
  ctx: Ctx,
  input: CreateContractInput,
  now = new Date(),
): Promise<Record<string, unknown>> {
  if (!input.signers.some((s) => (s.role ?? 'signer') === 'signer'))
    throw validation('signers: at least one signer with role signer is required', [
      { path: 'signers', error: 'at least one signer with role signer is required' },
    ]);
  if (input.deadlineAt && input.deadlineAt.getTime() <= now.getTime())
    throw validation('deadlineAt: must be in the future', [{ path: 'deadlineAt', error: 'must be in the future' }]);
  const term = input.contract
    ? { startDate: input.contract.startDate ?? null, endDate: input.contract.endDate ?? null }
    : null;
  if (term?.startDate && term.endDate && term.endDate < term.startDate)
    throw validation('contract.endDate: must not be before contract.startDate', [
      { path: 'contract.endDate', error: 'must not be before startDate' },
    ]);
  await assertRefs(ctx, [
    { field: 'companyRef', kind: 'company', id: input.companyRef },
    { field: 'personRef', kind: 'person', id: input.personRef },
    { field: 'dealRef', kind: 'deal', id: input.dealRef },
  ]);
  if (input.sourceOfferId && !(await ctx.em.count(Offer, { _id: input.sourceOfferId }))) {
    throw validation(`sourceOfferId: no offer with id ${input.sourceOfferId}`, [
      { path: 'sourceOfferId', error: `no offer with id ${input.sourceOfferId}` },
    ]);
  }
  if (input.templateId && !(await ctx.em.count(OfferTemplate, { _id: input.templateId }))) {
    throw validation(`templateId: no offer template with id ${input.templateId}`, [
      { path: 'templateId', error: `no offer template with id ${input.templateId}` },
    ]);
  }
  const priced = priceLines(input.lineItems ?? []);
  const contract = createRecord(ctx, Contract, {
    title: input.title,
    templateId: input.templateId ?? null,
    companyRef: input.companyRef ?? null,
    personRef: input.personRef ?? null,
    dealRef: input.dealRef ?? null,
    sourceOfferId: input.sourceOfferId ?? null,
    status: 'draft',
    mode: input.mode ?? 'sequential',
    signatureLevel: input.signatureLevel ?? 'standard',
    deadlineAt: input.deadlineAt ?? null,
    term,
    lineItems: priced.lines,
    subtotalMinor: priced.subtotalMinor,
    vatMinor: priced.vatMinor,
    totalMinor: priced.totalMinor,
    createdBy: ctx.actor.userId,
    channels: null,
    message: null,
    reminderIntervalMs: null,
    documentSha256: null,
    workflowId: null,
    sentAt: null,
    completedAt: null,
    declinedAt: null,
    expiredAt: null,
    voidedAt: null,
    voidReason: null,
    notifySigners: false,
    lastError: null,
  });
  const signers = input.signers.map((s, i) =>
    createRecord(ctx, ContractSigner, {
      contractId: contract._id,
      position: i + 1,
      name: s.name,
      email: s.email.toLowerCase(),
      phone: s.phone ?? null,
      title: s.title ?? null,
      role: s.role ?? 'signer',
      status: 'pending',
      tokenHash: null,
      tokenIssuedAt: null,
      invitedAt: null,
      lastNotifiedAt: null,
      remindersSent: 0,
      viewedAt: null,
      signedAt: null,
      declinedAt: null,
      declineReason: null,
      signatureType: null,
      signatureName: null,
      signatureImage: null,
      ip: null,
      userAgent: null,
      copySentAt: null,
    }),
  );
  ctx.em.persist([contract, ...signers]);
  await ctx.em.flush();
  return serializeContract(contract, signers);
}

export async function listContracts(ctx: Ctx, q: PageRequest & { status?: ContractStatus }) {
  const { items, total } = await findPage(ctx.em, Contract, q.status ? { status: q.status } : {}, q, {
    createdAt: 'desc',
  });
  const signers = await signersOf(
    ctx,
    items.map((c) => c._id),
  );
  return { items: items.map((c) => serializeContract(c, signers.get(c._id) ?? [])), total };
}

export async function getContract(ctx: Ctx, id: string): Promise<Contract> {
  return (
    (await ctx.em.findOne(Contract, { _id: id })) ??
    (() => {
      throw notFound('contract');
    })()
  );
}

export async function getContractView(ctx: Ctx, id: string): Promise<ContractView> {
  const c = await getContract(ctx, id);
  return serializeContract(c, (await signersOf(ctx, [c._id])).get(c._id) ?? []);
}

/** GET :id: the contract and its signers in one prepared select without the ORM (domain/orm/lean.ts). */
export async function readContract(ctx: Ctx, id: string): Promise<ContractView> {
  const children = {
    as: 'signers',
    entity: ContractSigner as EntityName<object>,
    foreignKey: 'contractId',
    orderBy: 'position',
  };
  const row = (await findRowById(ctx, Contract, id, { children })) as (Contract & { signers: ContractSigner[] }) | null;
  if (!row) throw notFound('contract');
  return serializeContract(row, row.signers);
}

export async function getSignedDocument(ctx: Ctx, id: string): Promise<ContractDocument> {
  await getContract(ctx, id);
  const doc = await ctx.em.findOne(ContractDocument, { contractId: id });
  if (!doc) throw notFound('signed document (available once every signer has signed)');
  return doc;
}

/** GET /contracts/:id/audit-trail: who was invited, viewed, signed or declined, when, from where. */
export async function auditTrail(ctx: Ctx, id: string): Promise<ContractAuditTrailView> {
  const c = await getContract(ctx, id);
  const signers = (await signersOf(ctx, [c._id])).get(c._id) ?? [];
  const doc = await ctx.em.findOne(ContractDocument, { contractId: id }, { fields: ['pdfSha256', 'createdAt'] });
  return {
    contractId: c._id,
    status: c.status,
    documentSha256: c.documentSha256 ?? null,
    signedPdfSha256: doc?.pdfSha256 ?? null,
    sentAt: c.sentAt?.toISOString() ?? null,
    completedAt: c.completedAt?.toISOString() ?? null,
    signers: signers.map((s) => ({
      ...plainOf(s, [
        '_id',
        'name',
        'email',
        ...SIGNER_PROGRESS,
        'signatureType',
        'signatureName',
        'ip',
        'userAgent',
        'remindersSent',
        'correctedAt',
      ]),
      order: s.position,
    })),
  };
}
