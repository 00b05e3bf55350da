/**
 * One-click decisions from an approver's e-mail (decision-links.ts): `GET` shows the booking and never decides (a mail
 * scanner's prefetch changes nothing); `POST` decides through the approval workflow's update whose id is the link's
 * SHA-256 (decideThroughWorkflow), so a double click is one update and one decision. A link that decided answers
 * 410 `used` afterwards; an expired one 410 `expired`; one replaced by a reschedule's e-mail 410 `superseded`; a
 * booking decided or cancelled otherwise 409 `decided`; an approver who is no longer one 403.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import type { Ctx } from '../../platform/context';
import { DomainError, notFound } from '../../platform/errors';
import { forkForWorkspace } from '../../platform/orm/tenant';
import { User } from '../workspaces';
import { decideThroughWorkflow, type ApprovalDeps } from './approval.service';
import { Booking, BookingConfig } from './booking.entity';
import {
  DECISION_LINKS_NOT_CONFIGURED,
  decisionLinkKey,
  linkCommandId,
  verifyDecisionLink,
  type DecisionLink,
} from './decision-links';
import type { BookingDecisionView, DecisionLinkState } from './bookings.views';

export interface DecisionDeps {
  orm: MikroORM;
  config: Pick<AppConfig, 'secretsKey'>;
  approval: ApprovalDeps;
}

interface Opened {
  ctx: Ctx;
  link: DecisionLink;
  booking: Booking;
  config: BookingConfig;
  commandId: string;
  state: DecisionLinkState;
}

const gone = (state: DecisionLinkState, message: string, status: string | null) =>
  new DomainError('gone', message, { state, status });

async function open(deps: DecisionDeps, token: string, now: Date): Promise<Opened> {
  const key = decisionLinkKey(deps.config);
  if (!key) throw new DomainError('not_configured', DECISION_LINKS_NOT_CONFIGURED);
  const check = verifyDecisionLink(key, token, now);
  if (!check.ok && check.reason === 'invalid') throw notFound('decision link');
  const link = check.link!;
  const em = forkForWorkspace(deps.orm.em, link.workspaceId);
  const booking = await em.findOne(Booking, { _id: link.bookingId });
  const approver = await em.findOne(User, { _id: link.approverId }, { fields: ['_id', 'role'] });
  if (!booking || !approver) throw notFound('decision link');
  const config = await em.findOne(BookingConfig, { _id: booking.configId });
  if (!config) throw notFound('decision link');
  const ctx: Ctx = {
    em,
    actor: { workspaceId: link.workspaceId, userId: approver._id, role: approver.role, scopes: ['write'] },
  };
  const commandId = linkCommandId(token);
  const isApprover = config.approvers.length
    ? config.approvers.includes(approver._id)
    : approver.role === 'owner' || approver.role === 'admin';
  const state: DecisionLinkState =
    booking.decisionId === commandId
      ? 'used'
      : !check.ok
        ? 'expired'
        : booking.rescheduleCount !== link.generation
          ? 'superseded'
          : booking.status !== 'pending'
            ? 'decided'
            : !isApprover
              ? 'not_approver'
              : 'open';
  return { ctx, link, booking, config, commandId, state };
}

function viewOf(o: Opened, state: DecisionLinkState = o.state): BookingDecisionView {
  const b = o.booking;
  return {
    state,
    canDecide: state === 'open',
    booking: {
      status: b.status,
      startDateTime: b.startDateTime.toISOString(),
      endDateTime: b.endDateTime.toISOString(),
      timeZone: b.timeZone,
      meetingTypeName: b.meetingTypeName ?? null,
      bookingPage: o.config.name,
      attendee: { name: b.attendeeInfo.name, email: b.attendeeInfo.email, notes: b.attendeeInfo.notes ?? null },
      approvalDeadlineAt: b.approvalDeadlineAt?.toISOString() ?? null,
      decidedAt: b.decidedAt?.toISOString() ?? null,
    },
  };
}

/** Why a link cannot decide, as the error the JSON answer carries. */
function refusal(o: Opened): DomainError {
  const status = o.booking.status;
  switch (o.state) {
    case 'used':
      return gone('used', `this link was already used: the booking is ${status}`, status);
    case 'expired':
      return gone('expired', 'this link has expired: the approval deadline passed', status);
    case 'superseded':
      return gone('superseded', 'the booking was rescheduled: use the link of the newest e-mail', status);
    case 'not_approver':
      return new DomainError('forbidden', 'you are no longer an approver of this booking page', { state: o.state });
    default:
      return new DomainError('invalid_state', `status: the booking is already ${status}`, {
        state: 'decided',
        current: status,
      });
  }
}

/** GET: the booking and whether the link can decide (`strict`: a link that cannot is an error, for JSON clients). */
export async function viewDecision(
  deps: DecisionDeps,
  token: string,
  strict: boolean,
  now = new Date(),
): Promise<BookingDecisionView> {
  const o = await open(deps, token, now);
  if (strict && o.state !== 'open') throw refusal(o);
  return viewOf(o);
}

/** POST: decide once through the workflow update (update id = the link's hash). */
export async function decideByLink(
  deps: DecisionDeps,
  token: string,
  input: { decision: 'approve' | 'reject'; notes?: string; reason?: string },
  now = new Date(),
): Promise<BookingDecisionView> {
  const o = await open(deps, token, now);
  if (o.state !== 'open') throw refusal(o);
  const booking = await decideThroughWorkflow(
    o.ctx,
    o.booking._id,
    input.decision,
    {
      commandId: o.commandId,
      via: 'email_link',
      ...(input.decision === 'approve' && input.notes ? { notes: input.notes } : {}),
      ...(input.decision === 'reject' && input.reason ? { reason: input.reason } : {}),
    },
    deps.approval,
  );
  return viewOf({ ...o, booking }, 'used');
}
