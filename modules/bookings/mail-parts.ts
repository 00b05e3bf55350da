/** Small helpers shared by the attendee and approver e-mails of bookings. */
import { DateTime } from 'luxon';
import { DomainError } from '../../platform/errors';
import type { EmailDeps, MessagingDeps } from '../email';
import type { Booking } from './booking.entity';

/** The meeting's local date and times in the booking's zone. */
export function when(b: Booking): string {
  const start = DateTime.fromJSDate(b.startDateTime, { zone: b.timeZone });
  const end = DateTime.fromJSDate(b.endDateTime, { zone: b.timeZone });
  return `${start.toFormat('cccc d LLLL yyyy, HH:mm')}-${end.toFormat('HH:mm')} (${b.timeZone})`;
}

export const notConfigured = (err: unknown): boolean => err instanceof DomainError && err.code === 'not_configured';

export const emailDeps = (m: MessagingDeps): EmailDeps => ({
  transport: m.transport,
  accounts: m.accounts,
  tracking: m.tracking,
});
