import type { Context } from 'koa';
import type { RouteFactory } from '../../platform/http/app-deps';
import { renderOfferHtml } from './offer-html';
import { previewKey, previewOffer, respondToOffer, viewPublicOffer, type PublicOffer } from './offer-public.service';
import { parseSecretsKey } from '../../platform/shared/secret-box';
import { parseBody } from '../../platform/http/parse-body';
import { envelopes, publicRoute } from '../../platform/http/crud';
import { type Reply, type ResponseSpec } from '../../platform/http/registry';
import { acceptBody, declineBody, previewTokenParams, publicIdParams } from './offers.schemas';
import { publicOfferView } from './offers.views';

const section = 'Offers';
const REASON =
  "opened by the offer's recipient, who holds no API key: the unguessable publicId (or signed preview token) is the capability";
const HTML_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store, private',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
};

/** JSON when the client asks for it (Accept: application/json), else the HTML page. */
function answer(koa: Context, view: PublicOffer, actionBase: string | null, message?: string): Reply {
  if (koa.accepts('html', 'json') === 'json')
    return { status: 200, body: { data: view }, headers: { 'Cache-Control': 'no-store, private' } };
  return { status: 200, body: renderOfferHtml(view, { actionBase, message }), headers: HTML_HEADERS };
}

// route() rather than publicRoute(): these handlers read the request itself (Accept, Content-Type, IP, user agent).
const page: ResponseSpec = {
  json: envelopes.data(publicOfferView),
  description: 'the offer as JSON (Accept: application/json) or as the HTML page',
  otherMedia: ['text/html'],
  headers: ['Cache-Control'],
};
const responded = {
  response: { json: envelopes.data(publicOfferView), description: 'a JSON post: the answered offer' },
  responses: {
    303: {
      empty: true,
      description: 'a form post: back to the offer page',
      headers: ['Location', 'Cache-Control'],
    },
  },
} as const;

const meta = (koa: Context) => ({ ip: koa.ip || null, userAgent: koa.get('user-agent') || null });

export const offersPublicRoutes: RouteFactory = (deps) => {
  const links = { publicBaseUrl: deps.config.publicBaseUrl };
  const secrets = parseSecretsKey(deps.config.secretsKey);
  const key = secrets ? previewKey(secrets) : null;
  const em = deps.orm.em;
  /** POST /public/offers/:publicId/<action>: the recipient's answer, once. */
  const answerRoute = (action: 'accept' | 'decline', decision: 'accepted' | 'declined', summary: string) =>
    publicRoute({
      method: 'POST',
      path: `/public/offers/:publicId/${action}`,
      section,
      params: publicIdParams,
      rawBody: true,
      reason: REASON,
      ...responded,
      summary,
      handler: async ({ params, koa }): Promise<Reply> => {
        // JSON (API clients) or a form post (the page); a form post answers with the page again (303).
        const input = parseBody(decision === 'accepted' ? acceptBody : declineBody, koa.request.body);
        const view = await respondToOffer(em, params.publicId, decision, input, meta(koa), links);
        if (/^application\/x-www-form-urlencoded/i.test(koa.get('content-type')))
          return {
            status: 303,
            body: '',
            headers: { Location: `/public/offers/${params.publicId}`, 'Cache-Control': 'no-store' },
          };
        return { status: 200, body: { data: view } };
      },
    });
  return [
    // Literal path before /public/offers/:publicId.
    publicRoute({
      method: 'GET',
      path: '/public/offers/preview/:token',
      section,
      params: previewTokenParams,
      reason: REASON,
      response: page,
      summary:
        'Preview of a draft through the signed token from GET /offers/:id/preview-token (valid 1 hour): the page as it would be sent, without accept/decline. Expired, forged or unknown tokens: 404.',
      handler: async ({ params, koa }) => answer(koa, await previewOffer(em, key, params.token), null),
    }),
    publicRoute({
      method: 'GET',
      path: '/public/offers/:publicId',
      section,
      params: publicIdParams,
      reason: REASON,
      response: page,
      summary:
        'The sent offer as its recipient sees it: HTML (escaped) with accept/decline forms, or { data } JSON with Accept: application/json. Shows only the snapshot taken at send. Unknown publicId: 404. Counts views (the first emits offer_viewed).',
      handler: async ({ params, koa }) =>
        answer(koa, await viewPublicOffer(em, params.publicId, links), `/public/offers/${params.publicId}`),
    }),
    answerRoute(
      'accept',
      'accepted',
      'Accept a sent offer once: { name, email?, comment? } (JSON or form). acceptanceSettings at send decide: requireName (default true) and requireEmail (400 when missing). Already answered, cancelled or past validUntil: 409. Emits offer_accepted (webhook offer.accepted) and a timeline row.',
    ),
    answerRoute(
      'decline',
      'declined',
      'Decline a sent offer once: { name?, email?, reason? } (JSON or form). acceptanceSettings: allowDecline false → 409; requireDeclineReason → reason required (400). Emits offer_rejected (webhook offer.declined) and a timeline row.',
    ),
  ];
};
