import type { RouteFactory } from '../app';
import * as templates from '../../domain/messaging/sms-templates.service';
import { acknowledged, created, ok, paged, route } from '../http/registry';
import { idParams } from '../../domain/shared/schemas';
import { createTemplateBody, templateListQuery, updateTemplateBody } from '../../domain/messaging/sms.schemas';

const section = 'SMS';
const read = { scopes: ['sms'] } as const;
const admin = { scopes: ['sms'], roles: ['owner', 'admin'] } as const;
const resources = { id: 'sms-template' };

export const smsTemplatesRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/sms-templates',
    section,
    access: read,
    query: templateListQuery,
    summary:
      'SMS templates by name: { _id, name, message, category, placeholders }. Templates are written by owners/admins through POST/PUT/DELETE (beyond the spec).',
    handler: async ({ ctx, query }) => {
      const { items, total } = await templates.listSmsTemplates(ctx, query);
      return paged(items.map(templates.serializeSmsTemplate), { page: query.page, limit: query.limit, total });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/sms-templates',
    section,
    access: admin,
    body: createTemplateBody,
    successStatus: 201,
    summary:
      'Create a template (name unique per workspace, 409 otherwise; message ≤ 1600 characters with {{placeholders}}; ≤ 500 per workspace).',
    handler: async ({ ctx, body }) =>
      created(templates.serializeSmsTemplate(await templates.createSmsTemplate(ctx, body))),
  }),
  route({
    method: 'GET',
    path: '/api/v1/sms-templates/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'One template.',
    handler: async ({ ctx, params }) =>
      ok(templates.serializeSmsTemplate(await templates.getSmsTemplate(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/sms-templates/:id',
    section,
    access: admin,
    params: idParams,
    body: updateTemplateBody,
    resources,
    summary: 'Update a template (partial).',
    handler: async ({ ctx, params, body }) =>
      ok(templates.serializeSmsTemplate(await templates.updateSmsTemplate(ctx, params.id, body))),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/sms-templates/:id',
    section,
    access: admin,
    params: idParams,
    resources,
    summary: 'Delete a template.',
    handler: async ({ ctx, params }) => {
      await templates.deleteSmsTemplate(ctx, params.id);
      return acknowledged();
    },
  }),
];
