import { defineModule } from '../module';
import { filesRoutes } from '../../api/routes/files.router';
import { integrationsRoutes } from '../../api/routes/integrations.router';
import { fileResource } from './files.resource';
import { fileEnv } from './settings';

/** Files (local, S3, cloud drives) and the cloud-drive integrations. */
export const filesModule = defineModule({
  name: 'files',
  resources: [fileResource],
  routes: [filesRoutes, integrationsRoutes],
  settings: { section: 'files', load: fileEnv },
});
