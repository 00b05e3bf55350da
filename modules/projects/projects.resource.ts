import { defineResource } from '../../platform/shared/resource';
import { getProject, serializeProject } from './projects.service';
import { ClipCard, Project, ProjectComment, TimeEntry } from './project.entity';
import { ProjectTemplate } from './project-template.entity';

export const projectResource = defineResource<Project>({
  kind: 'project',
  collection: 'projects',
  entity: Project,
  ownedEntities: [ProjectComment, TimeEntry, ClipCard, ProjectTemplate],
  load: getProject,
  view: serializeProject,
  parents: { company: 'company', personRef: 'person', dealRef: 'deal', offerRef: 'offer', leadRef: 'lead' },
  search: 'project',
  timeline: { refKind: 'project' },
});
