import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export const EMAIL_TEMPLATE_CATEGORIES = [
  'marketing',
  'transactional',
  'reminder',
  'follow-up',
  'notification',
  'quote',
  'newsletter',
  'other',
] as const;
export type EmailTemplateCategory = (typeof EMAIL_TEMPLATE_CATEGORIES)[number];

export const EmailTemplate = defineEntity({
  name: 'EmailTemplate',
  tableName: 'email_template',
  indexes: workspaceIndexes('createdAt'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    category: p.string().length(20).$type<EmailTemplateCategory>().default('other'),
    bodyHtml: p.text().nullable(),
    bodyCss: p.text().nullable(),
    compiledHtml: p.text().nullable(),
    /** True when compiledHtml was built by the server from bodyHtml/bodyCss/layoutSettings (rebuilt on change). */
    compiledByServer: p.boolean().default(true),
    plainText: p.text().nullable(),
    metadata: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    layoutSettings: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    projectData: p.json<unknown>().nullable(),
    tags: p.array().default([]),
    createdBy: p.string().length(24).nullable(),
  },
});
export type EmailTemplate = InferEntity<typeof EmailTemplate>;

export const EmailSignature = defineEntity({
  name: 'EmailSignature',
  tableName: 'email_signature',
  indexes: workspaceIndexes('createdAt'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    content: p.text(),
    textContent: p.text().nullable(),
    ownerId: p.string().length(24).nullable(),
  },
});
export type EmailSignature = InferEntity<typeof EmailSignature>;
