import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import { DomainError } from '../../platform/errors';
import { trackClick, trackOpen } from './tracking';
import { publicRoute } from '../../platform/http/crud';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const tokenParams = z.object({ token: z.string().max(200) });
const clickQuery = z.object({ u: z.string().max(8000).optional() });
const noStore = { 'Cache-Control': 'no-store, private', 'Referrer-Policy': 'no-referrer' };

export const emailTrackingRoutes: RouteFactory = (deps) => [
  publicRoute({
    method: 'GET',
    path: '/api/track/email/open/:token',
    section: 'E-mail',
    params: tokenParams,
    reason: 'loaded by mail clients, which send no credentials; the signed token is the capability',
    summary:
      'Open-tracking pixel of an e-mail sent with trackOpens: counts the open (the first emits email_opened) and answers a 1×1 GIF.',
    description:
      'Any token answers the same GIF, so the pixel never reveals whether an e-mail exists; only a correctly signed token counts.',
    response: {
      media: ['image/gif'],
      description: 'a transparent 1×1 GIF (never cached)',
      headers: ['Cache-Control'],
    },
    handler: async ({ params }) => {
      await trackOpen(deps.orm.em, deps.messaging.tracking?.key ?? null, params.token);
      return { status: 200, body: PIXEL, headers: { 'Content-Type': 'image/gif', ...noStore } };
    },
  }),
  publicRoute({
    method: 'GET',
    path: '/api/track/email/click/:token',
    section: 'E-mail',
    params: tokenParams,
    query: clickQuery,
    reason:
      'followed from e-mails by recipients, who hold no credentials; the token signs the e-mail and the exact link',
    summary:
      'Click redirect of a tracked e-mail: emits email_clicked and answers 302 to the original link. Only a link the token signs is followed (no open redirect); anything else is 404.',
    successStatus: 302,
    response: {
      empty: true,
      description: 'redirect to the original link (never cached)',
      headers: ['Location', 'Cache-Control'],
    },
    handler: async ({ params, query }) => {
      const target = await trackClick(deps.orm.em, deps.messaging.tracking?.key ?? null, params.token, query.u);
      if (!target) throw new DomainError('not_found', 'link not found');
      return { status: 302, body: '', headers: { Location: target, ...noStore } };
    },
  }),
];
