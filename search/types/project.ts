import { Project } from '../../modules/projects';
import { defineSearchType, joinParts, linkedName, linkTo } from './definition';

const links = [linkTo<Project>('company', 'company'), linkTo<Project>('person', 'personRef')];

export const projectSearch = defineSearchType<Project>({
  type: 'project',
  entity: Project,
  title: (p) => p.title,
  titleFields: ['title'],
  subtitle: (p, names) => joinParts(names.companyName ?? names.personName, p.status.replace('_', ' ')),
  fields: [
    { attribute: 'title', value: (p) => p.title, pg: ['title'] },
    { attribute: 'description', value: (p) => p.description, pg: ['description'] },
    ...links.map(linkedName),
    { attribute: 'tags', value: (p) => p.tags, pg: ['tags'] },
  ],
  references: links,
});
