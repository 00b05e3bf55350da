import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { Role } from '../../platform/context';
import { p, tenantProps } from '../../platform/orm/base';

export const User = defineEntity({
  name: 'User',
  tableName: 'app_user',
  uniques: [{ properties: ['workspaceId', 'email'] }],
  properties: {
    ...tenantProps,
    email: p.string().length(320),
    firstName: p.string().length(200),
    lastName: p.string().length(200).nullable(),
    phone: p.string().length(50).nullable(),
    defaultUserPhone: p.string().length(50).nullable(),
    role: p.string().length(20).$type<Role>(),
  },
});
export type User = InferEntity<typeof User>;
