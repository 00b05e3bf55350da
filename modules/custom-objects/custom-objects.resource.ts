import { defineResource } from '../../platform/shared/resource';
import { loadRecordForAutomation } from './automation-view';
import { CustomObject, CustomObjectField, CustomObjectRecord } from './custom-object.entity';

// Records are read under their object (GET /custom-objects/:slug/records/:id): the loader and view need the object too.
export const customObjectRecordResource = defineResource<CustomObjectRecord>({
  kind: 'custom-object-record',
  collection: 'custom-objects',
  getPath: '/api/v1/custom-objects/:slug/records/:id',
  entity: CustomObjectRecord,
  ownedEntities: [CustomObject, CustomObjectField],
  parents: { objectId: 'custom-object' },
  automation: {
    // custom_object_created/updated and lookups on CustomObjectRecord: the record (slugs flattened) and the CRM records
    // it references.
    entityType: 'custom_object',
    namespace: 'custom_record',
    lookup: 'CustomObjectRecord',
    load: async (em, id) => {
      const loaded = await loadRecordForAutomation(em, id);
      if (!loaded) return null;
      const { links } = loaded;
      return {
        namespaces: { custom_record: loaded.view },
        links: {
          personId: links.person,
          companyId: links.company,
          dealId: links.deal,
          leadId: links.lead,
          ownerId: loaded.ownerId,
        },
      };
    },
  },
  search: 'custom_object_record',
  timeline: { refKind: 'customObjectRecord' },
});
