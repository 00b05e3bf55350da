import type { RouteFactory } from '../app';
import * as templates from '../../domain/email/email-templates.service';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import { z } from 'zod';
import { crudRoutes, envelopes } from '../http/crud';
import { emailSignatureView, emailTemplateSummaryView, emailTemplateView } from '../../domain/email/email.views';
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
    description: 'view=summary answers { _id, name, category, metadata, tags, createdAt, updatedAt } per template.',
    response: envelopes.list(z.union([emailTemplateView, emailTemplateSummaryView])),
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
    response: envelopes.data(emailTemplateView),
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
    response: envelopes.data(emailTemplateView),
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
    response: envelopes.data(emailTemplateView),
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
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await templates.deleteEmailTemplate(ctx, params.id);
      return acknowledged();
    },
  }),
  ...crudRoutes({
    base: '/api/v1/email-signatures',
    section,
    kind: 'email-signature',
    access: { read, write },
    schemas: {
      list: listEmailSignaturesQuery,
      create: createEmailSignatureBody,
      update: updateEmailSignatureBody,
      view: emailSignatureView,
    },
    service: {
      list: templates.listEmailSignatures,
      create: (ctx, body) => templates.createEmailSignature(ctx, body),
      get: async (ctx, id) => templates.serializeEmailSignature(await templates.getEmailSignature(ctx, id)),
      update: (ctx, id, body) => templates.updateEmailSignature(ctx, id, body),
      remove: templates.deleteEmailSignature,
    },
    summaries: {
      list: 'E-mail signatures of the workspace, newest first.',
      create:
        'Create a signature: name and content (HTML) required, textContent optional. Clients inline it into html when sending.',
      get: 'One signature.',
      update: 'Update a signature (partial).',
      remove: 'Delete a signature.',
    },
  }),
];
