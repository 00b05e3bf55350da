import { defineResource, loadById } from '../../platform/shared/resource';
import { User } from './user.entity';
// Workspaces, API keys and rate-limit windows are global rows (workspaces.module.ts); users belong to one workspace.
export const userResource = defineResource<User>({
  kind: 'user',
  collection: 'users',
  entity: User,
  load: loadById(User, 'user'),
});
