/* eslint-disable @typescript-eslint/no-require-imports -- routes and activities load on first use (domain/module.ts) */
import { defineModule } from '../../platform/module';
import type * as notesRouter from './notes.router';
import { noteResource } from './notes.resource';
import { noteEvents } from './notes.events';

export const notesModule = defineModule({
  name: 'notes',
  resources: [noteResource],
  // Loaded when the API mounts them (the worker never loads the HTTP layer).
  routes: () => [(require('./notes.router') as typeof notesRouter).notesRoutes],
  events: noteEvents,
});
