import { Project } from '../../modules/projects';
import { defineSearchType, joinParts } from './definition';

export const projectSearch = defineSearchType<Project>({
  type: 'project',
  entity: Project,
  title: (p) => p.title,
  titleFields: ['title'],
  subtitle: (p, names) => joinParts(names.companyName ?? names.personName, p.status.replace('_', ' ')),
  fields: [
    { attribute: 'title', value: (p) => p.title, pg: ['title'] },
    { attribute: 'description', value: (p) => p.description, pg: ['description'] },
    { attribute: 'companyName', value: (_p, names) => names.companyName, pg: 'reference' },
    { attribute: 'personName', value: (_p, names) => names.personName, pg: 'reference' },
    { attribute: 'tags', value: (p) => p.tags, pg: ['tags'] },
  ],
  references: [
    { type: 'company', property: 'company', idAttribute: 'companyId', nameAttribute: 'companyName' },
    { type: 'person', property: 'personRef', idAttribute: 'personId', nameAttribute: 'personName' },
  ],
});
