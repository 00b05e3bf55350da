import { defineResource, loadById } from '../../platform/shared/resource';
import { FileLink, Folder, IntegrationSync, StoredFile } from './file.entity';
export const fileResource = defineResource<StoredFile>({
  kind: 'file',
  collection: 'files',
  entity: StoredFile,
  ownedEntities: [FileLink, Folder, IntegrationSync],
  load: loadById(StoredFile, 'file'),
});
