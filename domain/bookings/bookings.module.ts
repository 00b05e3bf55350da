import { defineModule } from '../module';
import { bookingsRoutes } from '../../api/routes/bookings.router';
import { publicBookingsRoutes } from '../../api/routes/public-bookings.router';
import { createBookingActivities } from '../../activities/bookings.activities';
import type { ActivityDeps } from '../../activities/deps';
import { subscriberGroup } from '../outbox/subscriber-groups';
import { bookingApprovalKind } from '../workflow-kinds';
import { bookingResource } from './bookings.resource';
import { bookingNotificationSubscriber } from './notifications';

/** Bookings: booking pages, public booking, approvals (one workflow per booking that needs one), notifications. */
export const bookingsModule = defineModule({
  name: 'bookings',
  resources: [bookingResource],
  routes: [bookingsRoutes, publicBookingsRoutes],
  workflows: [bookingApprovalKind],
  activities: (deps: ActivityDeps) =>
    createBookingActivities({
      orm: deps.orm,
      config: deps.config,
      log: deps.log.child({ component: 'bookings' }),
      messaging: deps.messaging,
    }),
  subscribers: [
    subscriberGroup(['booking-notifications'], (deps) => [
      bookingNotificationSubscriber({
        orm: deps.orm,
        config: deps.config,
        log: deps.log.child({ component: 'bookings' }),
      }),
    ]),
  ],
});
