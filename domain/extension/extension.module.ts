import { defineModule } from '../module';
import { extensionRoutes } from '../../api/routes/extension.router';
import { extensionCapturesRoutes } from '../../api/routes/extension-captures.router';

/** The browser extension and its captures. */
export const extensionModule = defineModule({
  name: 'extension',
  routes: [extensionRoutes, extensionCapturesRoutes],
});
