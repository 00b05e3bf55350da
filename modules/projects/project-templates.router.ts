import type { RouteFactory } from '../../platform/http/app-deps';
import * as templates from './project-templates.service';
import { created, ok, pageOf, route } from '../../platform/http/registry';
import { envelopes } from '../../platform/http/crud';
import { idParams } from '../../platform/shared/schemas';
import {
  createTemplateBody,
  fromTemplateBody,
  listTemplatesQuery,
  projectFromTemplateView,
  projectTemplateView,
  updateTemplateBody,
} from './project-templates.schemas';
import { read, write } from '../../platform/http/access';

const section = 'Projects';
const resources = { id: 'project-template' };

export const projectTemplatesRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/project-templates',
    section,
    access: read,
    query: listTemplatesQuery,
    summary: 'Active project templates (default first, then by name); includeInactive=true adds deleted ones.',
    response: envelopes.list(projectTemplateView),
    handler: async ({ ctx, query }) => pageOf(await templates.listTemplates(ctx, query), query),
  }),
  route({
    method: 'POST',
    path: '/api/v1/project-templates',
    section,
    access: write,
    body: createTemplateBody,
    successStatus: 201,
    summary:
      'Create a template (name required; taskTemplates [{title, description?, stage?, priority?}], milestoneTemplates, projectData, portalSettings, isDefault). Needs the permission to create projects (write).',
    response: envelopes.data(projectTemplateView),
    handler: async ({ ctx, body }) => created(await templates.createTemplate(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/project-templates/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'Get one template (also a deactivated one).',
    response: envelopes.data(projectTemplateView),
    handler: async ({ ctx, params }) => ok(templates.serializeTemplate(await templates.getTemplate(ctx, params.id))),
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/project-templates/:id',
    section,
    access: write,
    params: idParams,
    body: updateTemplateBody,
    resources,
    summary: 'Update the given fields (isActive: true restores a deleted template).',
    response: envelopes.data(projectTemplateView),
    handler: async ({ ctx, params, body }) => ok(await templates.updateTemplate(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/project-templates/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary:
      'Soft delete: the template becomes inactive (isActive=false) and stays readable by id and with includeInactive. Answers the deactivated template.',
    response: envelopes.data(projectTemplateView),
    handler: async ({ ctx, params }) => ok(await templates.deactivateTemplate(ctx, params.id)),
  }),
  route({
    method: 'POST',
    path: '/api/v1/projects/from-template',
    section,
    access: write,
    body: fromTemplateBody,
    successStatus: 201,
    summary:
      'Create a project from an active template: its project fields, milestones, portal settings and tasks are copied; offerData lineItems become project lines, dealRef/leadRef are linked.',
    description:
      'templateId required (400); an unknown or deactivated template is 404. Title defaults to offerData.offerTitle, else the template name. Answers the project with `tasks`.',
    response: envelopes.data(projectFromTemplateView),
    handler: async ({ ctx, body }) => created(await templates.createProjectFromTemplate(ctx, body)),
  }),
];
