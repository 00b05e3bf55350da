/**
 * One-click approval links of the approver e-mails:
 * `<workspaceId><bookingId><approverId>.<generation>.<expiry seconds>.<HMAC-SHA256>`, signed with a key derived
 * from CRM_SECRETS_KEY (like the offer preview and unsubscribe links), so a link names its booking and approver and
 * cannot be forged. Nothing is stored per link: `generation` is the booking's rescheduleCount (a reschedule sends
 * new links; the old ones are superseded) and the expiry is the approval deadline the e-mail announced. The link's
 * SHA-256 is the decision's command id (Temporal update id and Booking.decisionId): the link itself never enters a
 * workflow history, and two clicks of one link are one update (decided once).
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { AppConfig } from '../../platform/config';
import { isId } from '../../platform/ids';
import { parseSecretsKey } from '../../platform/shared/secret-box';

export const DECISION_LINK_PATH = '/api/v1/public/booking-decisions';
export const DECISION_LINKS_NOT_CONFIGURED =
  'one-click approval links are signed with a key derived from CRM_SECRETS_KEY: set it (64 hex characters)';

export interface DecisionLink {
  workspaceId: string;
  bookingId: string;
  approverId: string;
  generation: number;
  expiresAt: Date;
}

export type DecisionLinkCheck =
  { ok: true; link: DecisionLink } | { ok: false; reason: 'invalid' | 'expired'; link?: DecisionLink };

/** The signing key, or null without CRM_SECRETS_KEY. */
export function decisionLinkKey(config: Pick<AppConfig, 'secretsKey'>): Buffer | null {
  const secrets = parseSecretsKey(config.secretsKey);
  return secrets ? createHmac('sha256', secrets).update('crm booking decision v1').digest() : null;
}

const sign = (key: Buffer, parts: string[]): string =>
  createHmac('sha256', key)
    .update(['booking-decision', ...parts].join('\n'))
    .digest('base64url');

/**
 * The expiry is written in whole seconds, rounded down: a link never outlives the deadline it announces (a booking the
 * deadline decided answers "expired", not "decided", however soon after the deadline it is opened).
 */
export function signDecisionLink(key: Buffer, link: DecisionLink): string {
  const head = `${link.workspaceId}${link.bookingId}${link.approverId}`;
  const gen = String(link.generation);
  const exp = String(Math.floor(link.expiresAt.getTime() / 1000));
  return `${head}.${gen}.${exp}.${sign(key, [link.workspaceId, link.bookingId, link.approverId, gen, exp])}`;
}

/** Shape, signature, then expiry (an expired genuine link says so: 410, not 404). */
export function verifyDecisionLink(key: Buffer, token: string, now = new Date()): DecisionLinkCheck {
  const m = /^([0-9a-f]{24})([0-9a-f]{24})([0-9a-f]{24})\.(\d{1,6})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || !isId(m[1]) || !isId(m[2]) || !isId(m[3])) return { ok: false, reason: 'invalid' };
  const expected = Buffer.from(sign(key, [m[1]!, m[2]!, m[3]!, m[4]!, m[5]!]));
  const given = Buffer.from(m[6]!);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return { ok: false, reason: 'invalid' };
  const link: DecisionLink = {
    workspaceId: m[1]!,
    bookingId: m[2]!,
    approverId: m[3]!,
    generation: Number(m[4]),
    expiresAt: new Date(Number(m[5]) * 1000),
  };
  if (link.expiresAt.getTime() <= now.getTime()) return { ok: false, reason: 'expired', link };
  return { ok: true, link };
}

/** The decision's command id: `link-` + base64url SHA-256 of the link (48 characters; the link is never stored). */
export const linkCommandId = (token: string): string =>
  `link-${createHash('sha256').update(token, 'utf8').digest('base64url')}`;

export const decisionLinkUrl = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, '')}${DECISION_LINK_PATH}/${token}`;
