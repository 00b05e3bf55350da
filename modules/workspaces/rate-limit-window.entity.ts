import { defineEntity } from '@mikro-orm/core';
import { p } from '../../platform/orm/base';

// Declared so schema diffs know the table; rate-limit.service.ts reads and writes it with one
// upsert statement per request.
export const RateLimitWindow = defineEntity({
  name: 'RateLimitWindow',
  tableName: 'rate_limit_window',
  indexes: [{ name: 'rate_limit_window_start_index', properties: ['windowStart'] }],
  properties: {
    keyId: p.string().length(24).primary(),
    kind: p.string().columnType('char(1)').primary(),
    windowStart: p.datetime().primary(),
    count: p.integer(),
  },
});
