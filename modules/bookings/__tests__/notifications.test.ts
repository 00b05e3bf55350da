import type { Booking, BookingConfig } from '../booking.entity';
import { attendeeMail } from '../notifications';

const booking = (status: string) =>
  ({
    _id: '0123456789abcdef01234567',
    status,
    meetingTypeName: 'Intro call',
    startDateTime: new Date('2031-01-02T10:00:00Z'),
    endDateTime: new Date('2031-01-02T10:30:00Z'),
    timeZone: 'UTC',
    attendeeInfo: { name: 'Ada', email: 'ada@example.test' },
  }) as unknown as Booking;
const config = { name: 'Sales' } as unknown as BookingConfig;

describe('attendeeMail', () => {
  it('booking_created says what the booking was when the event happened, not what it is when the mail goes out', () => {
    // Held by a mail outage until after the approval: still the "request received" e-mail.
    const held = attendeeMail('booking_created', booking('approved'), config, 'https://x', {
      booking: { status: 'pending' },
    });
    expect(held?.subject).toMatch(/^Booking request received/);
    expect(held?.invite).toBeNull();
    const confirmed = attendeeMail('booking_created', booking('approved'), config, 'https://x', {
      booking: { status: 'approved' },
    });
    expect(confirmed?.subject).toMatch(/^Confirmed/);
    // Events written before the payload carried the booking: the current status decides.
    expect(attendeeMail('booking_created', booking('pending'), config, 'https://x', {})?.subject).toMatch(
      /^Booking request received/,
    );
  });
});
