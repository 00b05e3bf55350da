/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as peopleRouter from './people.router';
import { personResource } from './people.resource';
import { personEvents } from './people.events';
import type { PersonRelations } from './relations';

/** `related`: what the person routes show of deals (relations.ts), given by the composition. */
export const peopleModule = (related: PersonRelations) =>
  defineModule({
    name: 'people',
    resources: [personResource],
    // Loaded when the API mounts them (the worker never loads the HTTP layer).
    routes: () => [(require('./people.router') as typeof peopleRouter).peopleRoutesWith(related)],

    events: personEvents,
  });
