import type { RouteFactory } from '../../platform/http/app-deps';
import * as contracts from './contracts.service';
import { sendContract, voidContract, type SendDeps } from './contract-send.service';
import { contractStatusTransitions } from './contracts.rules';
import { envelopes } from '../../platform/http/crud';
import { created, ok, pageOf, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import {
  correctSignerBody,
  createContractBody,
  extendContractBody,
  listContractsQuery,
  sendContractBody,
  signerParams,
  voidContractBody,
} from './contracts.schemas';
import { correctSigner, extendContract, resendInvitation } from './envelope-changes.service';
import { contractAuditTrailView, contractView } from './contracts.views';
import { read, write } from '../../platform/http/access';

const section = 'Contracts';
const resources = { id: 'contract' };
const signerResources = { id: 'contract', signerId: 'contract-signer' };
const transitions = [contractStatusTransitions];

export const contractsRoutes: RouteFactory = (deps) => {
  const workflows = deps.workflows;
  const log = deps.log.child({ component: 'contracts' });
  const sendDeps: SendDeps = {
    transport: deps.messaging.transport,
    gateway: deps.messaging.gateway,
    eid: deps.eid,
    reminderIntervalMs: deps.config.contractReminderIntervalMs,
  };
  return [
    route({
      method: 'GET',
      path: '/api/v1/contracts',
      section,
      access: read,
      query: listContractsQuery,
      response: envelopes.list(contractView),
      summary: 'List contracts (newest first) with envelope status and signer progress; filter status.',
      handler: async ({ ctx, query }) => pageOf(await contracts.listContracts(ctx, query), query),
    }),
    route({
      method: 'POST',
      path: '/api/v1/contracts',
      section,
      access: write,
      body: createContractBody,
      successStatus: 201,
      response: envelopes.data(contractView),
      summary:
        'Create a draft contract: signers in signing order (role signer or cc, at least one signer), mode, signatureLevel, deadlineAt, contract {startDate, endDate}, lineItems (totals computed in integer minor units), links to company/person/deal (must exist).',
      handler: async ({ ctx, body }) => created(await contracts.createContract(ctx, body)),
    }),
    route({
      method: 'GET',
      path: '/api/v1/contracts/:id',
      section,
      access: read,
      params: idParams,
      resources,
      response: envelopes.data(contractView),
      summary:
        'One contract: envelope status and per-signer progress (pending, invited, viewed, signed, declined, with times). Signer links are never shown.',
      handler: async ({ ctx, params }) => ok(await contracts.readContract(ctx, params.id)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/contracts/:id/send',
      section,
      access: write,
      params: idParams,
      body: sendContractBody,
      resources,
      transitions,
      response: envelopes.data(contractView),
      errors: [502],
      summary:
        'Send a draft: starts the signing envelope workflow contract-envelope:<workspaceId>:<contractId>. Sequential mode invites one signer at a time, parallel all at once; reminders every reminderIntervalHours; deadlineAt passing expires it. Emits contract.sent. 409 unless draft; 503 not_configured for eid without EID_PROVIDER_URL or a channel without SMTP/SMS gateway.',
      handler: async ({ ctx, params, body }) => ok(await sendContract(ctx, params.id, body, sendDeps)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/contracts/:id/void',
      section,
      access: write,
      params: idParams,
      body: voidContractBody,
      resources,
      transitions,
      response: envelopes.data(contractView),
      summary:
        'Void a sent contract (reason, notifySigners): signer links stop working at once, the envelope ends, contract.voided is emitted. 409 unless sent.',
      handler: async ({ ctx, params, body }) => ok(await voidContract(ctx, params.id, body, { workflows, log })),
    }),
    route({
      method: 'PATCH',
      path: '/api/v1/contracts/:id/signers/:signerId',
      section,
      access: write,
      params: signerParams,
      body: correctSignerBody,
      resources: signerResources,
      response: envelopes.data(contractView),
      summary:
        'Correct a signer of a sent contract (name, email, phone) before that signer opened the link, signed or declined: the link sent before stops working at once and, when the signer had been due an invitation, the envelope workflow sends a new one (invitation.status queued, then sent). The document hash is recomputed (it names the signers). Emits contract.signer_corrected. 409 invalid_state once the signer opened or signed, or unless the contract is sent.',
      handler: async ({ ctx, params, body }) =>
        ok(await correctSigner(ctx, params.id, params.signerId, body, { workflows, log })),
    }),
    route({
      method: 'POST',
      path: '/api/v1/contracts/:id/signers/:signerId/resend',
      section,
      access: write,
      params: signerParams,
      resources: signerResources,
      response: envelopes.data(contractView),
      summary:
        "Resend an invited signer's invitation with a fresh link (the envelope workflow sends it; the previous link stops working then). At most once per 10 minutes per signer: 429 rate_limited with Retry-After before that. Emits contract.invitation_resent. 409 invalid_state unless the contract is sent and the signer was invited and has not signed or declined.",
      handler: async ({ ctx, params }) =>
        ok(await resendInvitation(ctx, params.id, params.signerId, { workflows, log })),
    }),
    route({
      method: 'POST',
      path: '/api/v1/contracts/:id/extend',
      section,
      access: write,
      params: idParams,
      body: extendContractBody,
      resources,
      response: envelopes.data(contractView),
      summary:
        'Extend the deadline of a sent contract: expiresAt becomes deadlineAt (in the future, later than the current deadline, at most 365 days from now; else 400) and the envelope workflow moves its deadline timer. Emits contract.extended. 409 invalid_state unless sent with a deadline that has not passed.',
      handler: async ({ ctx, params, body }) => ok(await extendContract(ctx, params.id, body, { workflows, log })),
    }),
    route({
      method: 'GET',
      path: '/api/v1/contracts/:id/document',
      section,
      access: read,
      params: idParams,
      resources,
      response: {
        media: ['application/pdf'],
        description: 'the signed PDF; X-Document-Sha256 carries its SHA-256',
        headers: ['Content-Disposition'],
      },
      summary: 'The signed PDF (with its audit trail page) of a fully signed contract; 404 until then.',
      handler: async ({ ctx, params }) => {
        const doc = await contracts.getSignedDocument(ctx, params.id);
        return {
          status: 200,
          body: Buffer.from(doc.pdf),
          headers: {
            'Content-Type': 'application/pdf',
            'Content-Disposition': `inline; filename="contract-${params.id}.pdf"`,
            'X-Document-Sha256': doc.pdfSha256,
          },
        };
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/contracts/:id/audit-trail',
      section,
      access: read,
      params: idParams,
      resources,
      response: envelopes.data(contractAuditTrailView),
      summary:
        'Audit trail: document SHA-256, signed PDF SHA-256, and for each recipient the invitation, view, signature or decline times, IP and user agent.',
      handler: async ({ ctx, params }) => ok(await contracts.auditTrail(ctx, params.id)),
    }),
  ];
};
