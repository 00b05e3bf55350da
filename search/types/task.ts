import { Task } from '../../modules/tasks';
import { defineSearchType, joinParts, linkedName, linkTo } from './definition';

const links = [
  linkTo<Task>('deal', 'dealRef'),
  linkTo<Task>('company', 'company'),
  linkTo<Task>('person', 'personRef'),
];

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
    ...links.map(linkedName),
    { attribute: 'tags', value: (t) => t.tags, pg: ['tags'] },
  ],
  references: links,
});
