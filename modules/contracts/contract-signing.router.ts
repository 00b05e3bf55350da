import type { Context } from 'koa';
import type { RouteFactory } from '../../platform/http/app-deps';
import { renderDocumentHtml } from './document';
import { declineAsSigner, signAsSigner, signedPdfForRecipient, viewAsSigner } from './signing.service';
import { envelopes, publicRoute } from '../../platform/http/crud';
import { ok } from '../../platform/http/registry';
import { declineBody, signBody, tokenParams } from './contracts.schemas';
import { declineResultView, signerDocumentView, signResultView } from './contracts.views';

const section = 'Contract signing (public)';
const reason =
  'opened by signers from their invitation, who hold no API key; the link token (stored only as a SHA-256) is the capability';
// The link must not leak to third parties through caches or referrers.
const noStore = { 'Cache-Control': 'no-store, private', 'Referrer-Policy': 'no-referrer' };
const clientOf = (koa: Context) => ({ ip: koa.ip || null, userAgent: koa.get('user-agent') || null });

export const contractSigningRoutes: RouteFactory = (deps) => {
  const signing = {
    orm: deps.orm,
    workflows: deps.workflows,
    log: deps.log.child({ component: 'contracts' }),
  };
  return [
    publicRoute({
      method: 'GET',
      path: '/public/contracts/sign/:token',
      section,
      reason,
      params: tokenParams,
      response: {
        json: envelopes.data(signerDocumentView),
        description: 'the document as JSON (Accept: application/json) or as an HTML page',
        otherMedia: ['text/html'],
        headers: ['Cache-Control'],
      },
      errors: [410],
      summary:
        'The document for its signer: HTML (escaped), or JSON with Accept: application/json. Records the first view. 404 unknown link; 410 once the envelope is voided, expired, declined or completed.',
      handler: async ({ params, koa }) => {
        const view = await viewAsSigner(deps.orm, params.token);
        if (koa.accepts('html', 'json') === 'json') return { ...ok(view), headers: noStore };
        return {
          status: 200,
          body: renderDocumentHtml(
            view.document,
            { name: view.signer.name, status: view.signer.status, canSign: view.signer.canSign },
            view.documentSha256,
          ),
          headers: {
            'Content-Type': 'text/html; charset=utf-8',
            'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
            ...noStore,
          },
        };
      },
    }),
    publicRoute({
      method: 'POST',
      path: '/public/contracts/sign/:token/sign',
      section,
      reason,
      params: tokenParams,
      body: signBody,
      response: { json: envelopes.data(signResultView), headers: ['Cache-Control'] },
      errors: [410],
      summary:
        'Sign: typedName, or signatureImage (data:image/png;base64, at most 2 MB). Idempotent (a repeat answers the first signature). 409 when an earlier signer has not signed yet (sequential) or the signer declined; 410 once the envelope ended. IP and user agent are recorded.',
      handler: async ({ params, body, koa }) => ({
        ...ok(await signAsSigner(signing, params.token, body, clientOf(koa))),
        headers: noStore,
      }),
    }),
    publicRoute({
      method: 'POST',
      path: '/public/contracts/sign/:token/decline',
      section,
      reason,
      params: tokenParams,
      body: declineBody,
      response: { json: envelopes.data(declineResultView), headers: ['Cache-Control'] },
      errors: [410],
      summary:
        'Decline with an optional reason: the contract becomes declined (contract.declined) and every link stops working.',
      handler: async ({ params, body, koa }) => ({
        ...ok(await declineAsSigner(signing, params.token, body, clientOf(koa))),
        headers: noStore,
      }),
    }),
    publicRoute({
      method: 'GET',
      path: '/public/contracts/sign/:token/document',
      section,
      reason,
      params: tokenParams,
      response: { media: ['application/pdf'], description: 'the signed PDF', headers: ['Cache-Control'] },
      errors: [410],
      summary:
        'The signed PDF, from the link in the signed-copy e-mail every recipient (cc included) gets once all have signed.',
      handler: async ({ params }) => ({
        status: 200,
        body: await signedPdfForRecipient(deps.orm, params.token),
        headers: { 'Content-Type': 'application/pdf', ...noStore },
      }),
    }),
  ];
};
