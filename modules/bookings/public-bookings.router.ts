import type { Context } from 'koa';
import type { RouteFactory } from '../../platform/http/app-deps';
import { DomainError } from '../../platform/errors';
import { formatZodError } from '../../platform/shared/schemas';
import { bookingSideDeps, type ApprovalDeps } from './approval.service';
import {
  cancelBody,
  decisionTokenParams,
  linkDecisionBody,
  publicIdParams,
  publicSlotsQuery,
  rescheduleBody,
} from './bookings.schemas';
import { DECISION_LINK_PATH } from './decision-links';
import { DECISION_PAGE_HEADERS, renderDecisionPage } from './decision-page';
import { publicCancel, publicReschedule, publicSlots, publicView } from './public.service';
import { decideByLink, viewDecision } from './public-decisions.service';
import { ok, type Reply } from '../../platform/http/registry';
import { envelopes, publicRoute } from '../../platform/http/crud';
import { bookingDecisionView, publicBookingView, publicSlotsView } from './bookings.views';

const section = 'Bookings';
const reason =
  "for attendees, who hold no API key: the booking's unguessable publicId (from the confirmation e-mail) is the capability";

const decisionReason =
  'opened by approvers from their e-mail, without an API key: the signed link (HMAC, expiring at the approval deadline) is the capability';
const isForm = (koa: Context) => /^application\/x-www-form-urlencoded/i.test(koa.get('content-type'));

export const publicBookingsRoutes: RouteFactory = (deps) => {
  const approval: ApprovalDeps = {
    workflows: deps.workflows,
    log: deps.log.child({ component: 'bookings' }),
    timeScale: deps.config.bookingTimeScale,
  };
  const side = bookingSideDeps(approval);
  const decisions = { orm: deps.orm, config: deps.config, approval };
  return [
    publicRoute({
      method: 'GET',
      path: `${DECISION_LINK_PATH}/:token`,
      section,
      reason: decisionReason,
      params: decisionTokenParams,
      response: {
        json: envelopes.data(bookingDecisionView),
        description:
          'JSON (Accept: application/json) for a link that can decide; a browser gets the HTML page in every state',
        otherMedia: ['text/html'],
        headers: ['Cache-Control'],
      },
      errors: [410],
      summary:
        "An approver's one-click link (from the approval e-mails): the booking with approve and reject buttons. Never decides (mail scanners prefetch links). JSON: 410 when the link was used, expired (the approval deadline passed) or superseded by a reschedule's newer link; 409 when the booking was decided or cancelled otherwise; 403 when the user is no longer an approver; 404 unknown or forged link. The HTML page says the same with status 200.",
      handler: async ({ params, koa }) => {
        const json = koa.accepts('html', 'json') === 'json';
        const view = await viewDecision(decisions, params.token, json);
        if (json) return { ...ok(view), headers: { 'Cache-Control': 'no-store, private' } };
        return { status: 200, body: renderDecisionPage(view, koa.path), headers: DECISION_PAGE_HEADERS };
      },
    }),
    publicRoute({
      method: 'POST',
      path: `${DECISION_LINK_PATH}/:token`,
      section,
      reason: decisionReason,
      params: decisionTokenParams,
      rawBody: true,
      response: {
        json: envelopes.data(bookingDecisionView),
        description: 'a JSON post: the decided booking (state used)',
        headers: ['Cache-Control'],
      },
      responses: {
        303: {
          empty: true,
          description: 'a form post: back to the page, which shows the outcome',
          headers: ['Location'],
        },
      },
      errors: [410],
      summary:
        "Decide with the link: { decision: approve|reject, notes?, reason? } (JSON or the page's form). The link's SHA-256 is the Temporal update id, so a double click or a retry decides once (both answer the one outcome). Errors as for GET (410 used/expired/superseded, 409 decided otherwise); a form post answers 303 back to the page.",
      handler: async ({ params, koa }): Promise<Reply> => {
        const parsed = linkDecisionBody.safeParse(koa.request.body ?? {});
        if (!parsed.success) {
          const { message, details } = formatZodError(parsed.error, 'body');
          throw new DomainError('validation', message, details);
        }
        if (!isForm(koa))
          return {
            ...ok(await decideByLink(decisions, params.token, parsed.data)),
            headers: { 'Cache-Control': 'no-store, private' },
          };
        // The page shows the outcome, whatever it was (decided now, by an earlier click, or refused).
        await decideByLink(decisions, params.token, parsed.data).catch((err: unknown) => {
          if (!(err instanceof DomainError) || !['gone', 'invalid_state', 'forbidden'].includes(err.code)) throw err;
        });
        return { status: 303, body: '', headers: { Location: koa.path } };
      },
    }),
    publicRoute({
      method: 'GET',
      path: '/api/v1/public/bookings/:publicId',
      section,
      reason,
      params: publicIdParams,
      response: envelopes.data(publicBookingView),
      summary:
        "The attendee's view of a booking: status, times, meeting type, host, booking page, canCancel, canReschedule. Unknown publicId → 404.",
      handler: async ({ params }) => ok(await publicView(deps.orm, params.publicId)),
    }),
    publicRoute({
      method: 'GET',
      path: '/api/v1/public/bookings/:publicId/available-slots',
      section,
      reason,
      params: publicIdParams,
      query: publicSlotsQuery,
      response: envelopes.data(publicSlotsView),
      summary:
        'Free slots to move this booking to (startDate, endDate YYYY-MM-DD, at most 62 days; its own slot counts as free). Times only, no agent ids.',
      handler: async ({ params, query }) => ok(await publicSlots(deps.orm, params.publicId, query)),
    }),
    publicRoute({
      method: 'POST',
      path: '/api/v1/public/bookings/:publicId/cancel',
      section,
      reason,
      params: publicIdParams,
      body: cancelBody,
      response: envelopes.data(publicBookingView),
      summary:
        'The attendee cancels (reason optional). 409 when online changes are off (publicBookingEnabled false), the booking no longer holds a slot, or the start is within minimumNoticeMinutes.',
      handler: async ({ params, body }) => ok(await publicCancel(deps.orm, params.publicId, body.reason, side)),
    }),
    publicRoute({
      method: 'POST',
      path: '/api/v1/public/bookings/:publicId/reschedule',
      section,
      reason,
      params: publicIdParams,
      body: rescheduleBody,
      response: envelopes.data(publicBookingView),
      summary:
        'The attendee moves the booking to newSlotStart (required; a slot of the public available-slots) under the same rules as cancel; 409 when the slot is taken.',
      handler: async ({ params, body }) =>
        ok(await publicReschedule(deps.orm, params.publicId, body.newSlotStart, side)),
    }),
  ];
};
