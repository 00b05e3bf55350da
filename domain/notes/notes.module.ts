import { defineModule } from '../module';
import { notesRoutes } from '../../api/routes/notes.router';
import { noteResource } from './notes.resource';

export const notesModule = defineModule({
  name: 'notes',
  resources: [noteResource],
  routes: [notesRoutes],
});
