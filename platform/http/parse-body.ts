import type { z } from 'zod';
import { DomainError } from '../errors';
import { formatZodError } from '../shared/schemas';

/**
 * A body a handler checks itself rather than the route (after a lookup that must answer 404 first, or a body that
 * may be a form post): its parsed value, else the 400 the route's own check would answer. A missing body is `{}`.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) {
    const { message, details } = formatZodError(parsed.error, 'body');
    throw new DomainError('validation', message, details);
  }
  return parsed.data;
}
