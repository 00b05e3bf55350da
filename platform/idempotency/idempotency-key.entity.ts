import { defineEntity } from '@mikro-orm/core';
import { p } from '../orm/base';

// Declared so schema diffs know the table; idempotency.service.ts reads and writes it with plain
// statements that always name the workspace.
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_key',
  indexes: [{ name: 'idempotency_key_created_at_index', properties: ['createdAt'] }],
  properties: {
    workspaceId: p.string().length(24).primary(),
    key: p.string().length(255).primary(),
    requestHash: p.string().columnType('char(64)'),
    state: p.string().length(12),
    lockId: p.string().length(24),
    responseStatus: p.integer().nullable(),
    responseBody: p.text().nullable(),
    responseHeaders: p.json<Record<string, string>>().nullable(),
    createdAt: p.datetime(),
    completedAt: p.datetime().nullable(),
  },
});
