import { Task } from '../../modules/tasks';
import { defineSearchType, joinParts } from './definition';

export const taskSearch = defineSearchType<Task>({
  type: 'task',
  entity: Task,
  title: (t) => t.title,
  titleFields: ['title'],
  subtitle: (t, names) =>
    joinParts(names.dealName ?? names.companyName ?? names.personName, t.status.replace('_', ' ')),
  fields: [
    { attribute: 'title', value: (t) => t.title, pg: ['title'] },
    { attribute: 'description', value: (t) => t.description, pg: ['description'] },
    { attribute: 'dealName', value: (_t, names) => names.dealName, pg: 'reference' },
    { attribute: 'companyName', value: (_t, names) => names.companyName, pg: 'reference' },
    { attribute: 'personName', value: (_t, names) => names.personName, pg: 'reference' },
    { attribute: 'tags', value: (t) => t.tags, pg: ['tags'] },
  ],
  references: [
    { type: 'deal', property: 'dealRef', idAttribute: 'dealId', nameAttribute: 'dealName' },
    { type: 'company', property: 'company', idAttribute: 'companyId', nameAttribute: 'companyName' },
    { type: 'person', property: 'personRef', idAttribute: 'personId', nameAttribute: 'personName' },
  ],
});
