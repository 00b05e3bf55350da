/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as bookingsRouter from './bookings.router';
import type * as publicBookingsRouter from './public-bookings.router';
import type * as bookingsActivities from './bookings.activities';
import type { ActivityDeps } from '../../platform/activity-deps';
import { componentDeps } from '../../platform/component-deps';
import { subscriberGroup } from '../../platform/outbox/subscriber-groups';
import { bookingApprovalKind } from './booking-approval.kind';
import { bookingResource } from './bookings.resource';
import { bookingNotificationSubscriber } from './notifications';
import { bookingEvents } from './bookings.events';

/** Bookings: booking pages, public booking, approvals (one workflow per booking that needs one), notifications. */
export const bookingsModule = defineModule({
  name: 'bookings',
  resources: [bookingResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [
    (require('./bookings.router') as typeof bookingsRouter).bookingsRoutes,
    (require('./public-bookings.router') as typeof publicBookingsRouter).publicBookingsRoutes,
  ],
  workflows: [bookingApprovalKind],
  activities: (deps: ActivityDeps) =>
    // Loaded when the worker builds them (the API never loads activity code).
    (require('./bookings.activities') as typeof bookingsActivities).createBookingActivities(
      componentDeps(deps, 'bookings'),
    ),
  subscribers: [
    subscriberGroup(['booking-notifications'], (deps) => [
      bookingNotificationSubscriber(componentDeps(deps, 'bookings')),
    ]),
  ],
  events: bookingEvents,
});
