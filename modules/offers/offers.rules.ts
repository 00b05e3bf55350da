import { defineTransitions } from '../../platform/shared/transitions';
import type { OfferStatus } from './offer.entity';

/** Offer status: only drafts change content; the recipient answers a sent offer once. */
export const offerStatusTransitions = defineTransitions<OfferStatus>({
  resource: 'offer',
  field: 'status',
  states: ['draft', 'sent', 'accepted', 'declined', 'cancelled', 'expired'],
  transitions: {
    draft: ['sent', 'cancelled'],
    sent: ['accepted', 'declined', 'cancelled', 'expired'],
    accepted: [],
    declined: [],
    cancelled: [],
    expired: [],
  },
  notes: [
    'PUT and DELETE only on drafts (409 otherwise); send freezes an immutable snapshot, takes the next offer number and hands out the publicId.',
    'accepted and declined come from the recipient on the public link (POST /public/offers/:publicId/accept|decline), once.',
    'expired is derived: a sent offer whose validUntil (inclusive, UTC) has passed reads as expired and can no longer be accepted.',
  ],
});

/** True when an offer in `from` may move on to `to` (a real move: staying in `to` does not count). */
export const offerCanMove = (from: OfferStatus, to: OfferStatus): boolean =>
  offerStatusTransitions.allowedFrom(from).includes(to);

/** Draft or sent: an offer that may go out to the customer (a draft is sent first). */
export const offerCanGoOut = (status: OfferStatus): boolean => offerStatusTransitions.can(status, 'sent');

/** Today as YYYY-MM-DD (UTC): validUntil is inclusive. */
export const todayUtc = (now = new Date()): string => now.toISOString().slice(0, 10);

/** The status the API shows: a sent offer past its validUntil is expired. */
export function effectiveStatus(
  offer: { status: OfferStatus; validUntil?: string | null },
  now = new Date(),
): OfferStatus {
  return offer.status === 'sent' && !!offer.validUntil && offer.validUntil < todayUtc(now) ? 'expired' : offer.status;
}
