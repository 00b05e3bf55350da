import type { Context } from 'koa';
import type { RouteFactory } from '../app';
import { renderDocumentHtml } from '../../domain/contracts/document';
import {
  declineAsSigner,
  signAsSigner,
  signedPdfForRecipient,
  viewAsSigner,
} from '../../domain/contracts/signing.service';
import { createWorkflowPort } from '../../temporal/workflow-client';
import { ok, route } from '../http/registry';
import { declineBody, signBody, tokenParams } from '../../domain/contracts/contracts.schemas';

const section = 'Contract signing (public)';
const access = {
  public:
    'opened by signers from their invitation, who hold no API key; the link token (stored only as a SHA-256) is the capability',
} as const;
// The link must not leak to third parties through caches or referrers.
const noStore = { 'Cache-Control': 'no-store, private', 'Referrer-Policy': 'no-referrer' };
const clientOf = (koa: Context) => ({ ip: koa.ip || null, userAgent: koa.get('user-agent') || null });

export const contractSigningRoutes: RouteFactory = (deps) => {
  const signing = {
    orm: deps.orm,
    workflows: createWorkflowPort(deps.temporal, deps.config.temporalTaskQueue),
    log: deps.log.child({ component: 'contracts' }),
  };
  return [
    route({
      method: 'GET',
      path: '/public/contracts/sign/:token',
      section,
      access,
      params: tokenParams,
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
    route({
      method: 'POST',
      path: '/public/contracts/sign/:token/sign',
      section,
      access,
      params: tokenParams,
      body: signBody,
      summary:
        'Sign: typedName, or signatureImage (data:image/png;base64, at most 2 MB). Idempotent (a repeat answers the first signature). 409 when an earlier signer has not signed yet (sequential) or the signer declined; 410 once the envelope ended. IP and user agent are recorded.',
      handler: async ({ params, body, koa }) => ({
        ...ok(await signAsSigner(signing, params.token, body, clientOf(koa))),
        headers: noStore,
      }),
    }),
    route({
      method: 'POST',
      path: '/public/contracts/sign/:token/decline',
      section,
      access,
      params: tokenParams,
      body: declineBody,
      summary:
        'Decline with an optional reason: the contract becomes declined (contract.declined) and every link stops working.',
      handler: async ({ params, body, koa }) => ({
        ...ok(await declineAsSigner(signing, params.token, body, clientOf(koa))),
        headers: noStore,
      }),
    }),
    route({
      method: 'GET',
      path: '/public/contracts/sign/:token/document',
      section,
      access,
      params: tokenParams,
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
