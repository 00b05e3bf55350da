import { defineResource, loadById } from '../../platform/shared/resource';
import { List, ListItem } from './list.entity';
export const listResource = defineResource<List>({
  kind: 'list',
  collection: 'lists',
  entity: List,
  ownedEntities: [ListItem],
  load: loadById(List, 'list'),
});
