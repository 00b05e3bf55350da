import { defineEntity, type InferEntity } from '@mikro-orm/core';
import type { Role, Scope } from '../../platform/context';
import { idProps, p, timestampProps } from '../../platform/orm/base';

// Looked up by hash before the workspace is known, so it is not under the tenant filter;
// every read of it outside authentication filters by workspaceId explicitly.
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    ...idProps,
    ...timestampProps,
    workspaceId: p.string().length(24).index(),
    userId: p.string().length(24),
    name: p.string().length(200).nullable(),
    prefix: p.string().length(20),
    hash: p.string().length(64).unique(),
    scopes: p.array<Scope>(),
    role: p.string().length(20).$type<Role>(),
    revokedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
