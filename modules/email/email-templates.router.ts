import type { RouteFactory } from '../../platform/http/app-deps';
import * as templates from './email-templates.service';
import { z } from 'zod';
import { crudRoutes, envelopes, viewOf } from '../../platform/http/crud';
import { emailSignatureView, emailTemplateSummaryView, emailTemplateView } from './email.views';
import {
  createEmailSignatureBody,
  createEmailTemplateBody,
  listEmailSignaturesQuery,
  listEmailTemplatesQuery,
  updateEmailSignatureBody,
  updateEmailTemplateBody,
} from './email-templates.schemas';
import { admin, read, write } from '../../platform/http/access';

const section = 'E-mail templates and signatures';
const placeholders =
  'Placeholders {{contact.*}} (and person, company, deal, lead, owner) with {{x | default:"fallback"}} are rendered at send time.';

export const emailTemplatesRoutes: RouteFactory = () => [
  ...crudRoutes({
    base: '/api/v1/email-templates',
    section,
    kind: 'email-template',
    access: { read, write: admin },
    schemas: {
      list: listEmailTemplatesQuery,
      create: createEmailTemplateBody,
      update: updateEmailTemplateBody,
      view: emailTemplateView,
    },
    service: {
      list: templates.listEmailTemplates,
      create: templates.createEmailTemplate,
      get: viewOf(templates.getEmailTemplate, templates.serializeEmailTemplate),
      update: templates.updateEmailTemplate,
      remove: templates.deleteEmailTemplate,
    },
    updateMethod: 'PATCH',
    routes: {
      list: {
        description: 'view=summary answers { _id, name, category, metadata, tags, createdAt, updatedAt } per template.',
        response: envelopes.list(z.union([emailTemplateView, emailTemplateSummaryView])),
      },
      create: {
        description: `Without compiledHtml the server builds the full document from bodyHtml, bodyCss and layoutSettings (and rebuilds it on change). ${placeholders}`,
      },
    },
    summaries: {
      list: 'E-mail templates, newest first; filter by category, tag or q (name).',
      create: 'Create a template (owner/admin). category defaults to other; an unknown category is 400.',
      get: 'One template with compiledHtml and projectData.',
      update: 'Update a template (owner/admin; partial; metadata merges by key).',
      remove: 'Delete a template (owner/admin).',
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
      create: templates.createEmailSignature,
      get: viewOf(templates.getEmailSignature, templates.serializeEmailSignature),
      update: templates.updateEmailSignature,
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
