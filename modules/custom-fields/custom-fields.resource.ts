import { defineResource, loadById } from '../../platform/shared/resource';
import { CustomFieldDefinition } from './custom-field-definition.entity';
export const customFieldResource = defineResource<CustomFieldDefinition>({
  kind: 'custom-field',
  collection: 'custom-fields',
  entity: CustomFieldDefinition,
  load: loadById(CustomFieldDefinition, 'custom field'),
});
