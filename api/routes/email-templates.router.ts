import type { RouteFactory } from '../app';
import * as templates from '../../domain/email/email-templates.service';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import {
  createEmailSignatureBody,
  createEmailTemplateBody,
  listEmailSignaturesQuery,
  listEmailTemplatesQuery,
  updateEmailSignatureBody,
  updateEmailTemplateBody,
} from '../../domain/email/email-templates.schemas';

const read = { scopes: ['read'] } as const;
const write = { scopes: ['write'] } as const;
const admin = { scopes: ['write'], roles: ['owner', 'admin'] } as const;
const section = 'E-mail templates and signatures';
const template = { id: 'email-template' };
const signature = { id: 'email-signature' };
const placeholders =
  'Placeholders {{contact.*}} (and person, company, deal, lead, owner) with {{x | default:"fallback"}} are rendered at send time.';

export const emailTemplatesRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/email-templates',
    section,
    access: read,
    query: listEmailTemplatesQuery,
    summary: 'E-mail templates, newest first; filter by category, tag or q (name).',
    handler: async ({ ctx, query }) => {
      const { items, total } = await templates.listEmailTemplates(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/email-templates',
    section,
    access: admin,
    body: createEmailTemplateBody,
    successStatus: 201,
    summary: 'Create a template (owner/admin). category defaults to other; an unknown category is 400.',
    description: `Without compiledHtml the server builds the full document from bodyHtml, bodyCss and layoutSettings (and rebuilds it on change). ${placeholders}`,
    handler: async ({ ctx, body }) => created(await templates.createEmailTemplate(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/email-templates/:id',
    section,
    access: read,
    params: idParams,
    resources: template,
    summary: 'One template with compiledHtml and projectData.',
    handler: async ({ ctx, params }) =>
      ok(templates.serializeEmailTemplate(await templates.getEmailTemplate(ctx, params.id))),
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/email-templates/:id',
    section,
    access: admin,
    params: idParams,
    body: updateEmailTemplateBody,
    resources: template,
    summary: 'Update a template (owner/admin; partial; metadata merges by key).',
    handler: async ({ ctx, params, body }) => ok(await templates.updateEmailTemplate(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/email-templates/:id',
    section,
    access: admin,
    params: idParams,
    resources: template,
    summary: 'Delete a template (owner/admin).',
    handler: async ({ ctx, params }) => {
      await templates.deleteEmailTemplate(ctx, params.id);
      return acknowledged();
    },
  }),
  route({
    method: 'GET',
    path: '/api/v1/email-signatures',
    section,
    access: read,
    query: listEmailSignaturesQuery,
    summary: 'E-mail signatures of the workspace, newest first.',
    handler: async ({ ctx, query }) => {
      const { items, total } = await templates.listEmailSignatures(ctx, query);
      return paged(items, { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/email-signatures',
    section,
    access: write,
    body: createEmailSignatureBody,
    successStatus: 201,
    summary:
      'Create a signature: name and content (HTML) required, textContent optional. Clients inline it into html when sending.',
    handler: async ({ ctx, body }) => created(await templates.createEmailSignature(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/email-signatures/:id',
    section,
    access: read,
    params: idParams,
    resources: signature,
    summary: 'One signature.',
    handler: async ({ ctx, params }) =>
      ok(templates.serializeEmailSignature(await templates.getEmailSignature(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/email-signatures/:id',
    section,
    access: write,
    params: idParams,
    body: updateEmailSignatureBody,
    resources: signature,
    summary: 'Update a signature (partial).',
    handler: async ({ ctx, params, body }) => ok(await templates.updateEmailSignature(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/email-signatures/:id',
    section,
    access: write,
    params: idParams,
    resources: signature,
    summary: 'Delete a signature.',
    handler: async ({ ctx, params }) => {
      await templates.deleteEmailSignature(ctx, params.id);
      return acknowledged();
    },
  }),
];
