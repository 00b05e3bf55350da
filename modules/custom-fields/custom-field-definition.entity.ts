import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps } from '../../platform/orm/base';

export const CUSTOM_FIELD_ENTITY_TYPES = ['lead', 'deal', 'company', 'person', 'project', 'task'] as const;
export type CustomFieldEntityType = (typeof CUSTOM_FIELD_ENTITY_TYPES)[number];

export const CUSTOM_FIELD_TYPES = [
  'text',
  'number',
  'date',
  'checkbox',
  'select',
  'multi_select',
  'url',
  'email',
  'phone',
  'textarea',
] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export interface CustomFieldOption {
  value: string;
  label: string;
  color?: string | null;
}

export const CustomFieldDefinition = defineEntity({
  name: 'CustomFieldDefinition',
  tableName: 'custom_field_definition',
  uniques: [{ properties: ['workspaceId', 'entityType', 'key'] }],
  properties: {
    ...tenantProps,
    entityType: p.string().length(20).$type<CustomFieldEntityType>(),
    key: p.string().length(100),
    label: p.string().length(200),
    type: p.string().length(20).$type<CustomFieldType>(),
    description: p.string().length(1000).nullable(),
    options: p.json<CustomFieldOption[]>().default([]),
    required: p.boolean().default(false),
    order: p.integer().default(0),
    showInCreateDialog: p.boolean().default(true),
  },
});
export type CustomFieldDefinition = InferEntity<typeof CustomFieldDefinition>;
