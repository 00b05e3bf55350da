import type { RouteFactory } from '../../platform/http/app-deps';
import * as templates from './sms-templates.service';
import { crudRoutes, viewOf } from '../../platform/http/crud';
import { createTemplateBody, templateListQuery, updateTemplateBody } from './sms.schemas';
import { smsTemplateView } from './sms.views';

const read = { scopes: ['sms'] } as const;
const admin = { scopes: ['sms'], roles: ['owner', 'admin'] } as const;

export const smsTemplatesRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/sms-templates',
    section: 'SMS',
    kind: 'sms-template',
    access: { read, write: admin },
    schemas: {
      list: templateListQuery,
      create: createTemplateBody,
      update: updateTemplateBody,
      view: smsTemplateView,
    },
    service: {
      list: async (ctx, query) => {
        const { items, total } = await templates.listSmsTemplates(ctx, query);
        return { items: items.map(templates.serializeSmsTemplate), total };
      },
      create: async (ctx, body) => templates.serializeSmsTemplate(await templates.createSmsTemplate(ctx, body)),
      get: viewOf(templates.getSmsTemplate, templates.serializeSmsTemplate),
      update: async (ctx, id, body) => templates.serializeSmsTemplate(await templates.updateSmsTemplate(ctx, id, body)),
      remove: templates.deleteSmsTemplate,
    },
    summaries: {
      list: 'SMS templates by name: { _id, name, message, category, placeholders }. Templates are written by owners/admins through POST/PUT/DELETE (beyond the spec).',
      create:
        'Create a template (name unique per workspace, 409 otherwise; message ≤ 1600 characters with {{placeholders}}; ≤ 500 per workspace).',
      get: 'One template.',
      update: 'Update a template (partial).',
      remove: 'Delete a template.',
    },
  });
