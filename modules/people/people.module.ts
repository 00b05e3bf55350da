/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as peopleRouter from './people.router';
import { personResource } from './people.resource';
import { personEvents } from './people.events';

export const peopleModule = defineModule({
  name: 'people',
  resources: [personResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./people.router') as typeof peopleRouter).peopleRoutes],
  events: personEvents,
});
