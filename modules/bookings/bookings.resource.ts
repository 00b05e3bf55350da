import { defineResource } from '../../platform/shared/resource';
import { getBooking, serializeBooking } from './bookings.service';
import { Booking, BookingConfig } from './booking.entity';

export const bookingResource = defineResource<Booking>({
  kind: 'booking',
  collection: 'bookings',
  entity: Booking,
  ownedEntities: [BookingConfig],
  load: getBooking,
  view: serializeBooking,
  parents: { configId: 'booking-config', personId: 'person', leadId: 'lead' },
});
