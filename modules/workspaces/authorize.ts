/**
 * The API key check of every authenticated route (api/app.ts): the key from the request, its rate limits, then the
 * route's scopes and roles. A workspaces concern, so it lives here rather than in the HTTP kit (platform/http).
 */
import type { Context } from 'koa';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Access } from '../../platform/http/registry';
import { DomainError } from '../../platform/errors';
import { authenticateAndCount, type ActorCache, type Authenticated } from './authenticate';
import type { RateLimitState } from './rate-limit.service';
import type { AuthFailureLimiter } from '../../platform/http/auth-failures';

export function extractKey(ctx: Context): string | undefined {
  const header = ctx.get('authorization');
  if (header) {
    const match = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!match) throw new DomainError('unauthenticated', 'malformed Authorization header; expected "Bearer <API key>"');
    return match[1];
  }
  const fromQuery = ctx.query.api_key;
  return typeof fromQuery === 'string' && fromQuery ? fromQuery : undefined;
}

/**
 * Authenticates and counts the request against the key's limits (one statement), then checks scope
 * and role. `em` only lends its connection pool; no fork is needed for that.
 */
export async function authorize(
  ctx: Context,
  em: EntityManager,
  access: Exclude<Access, { public: string }>,
  limits: { perMinute: number; perDay: number },
  failures?: AuthFailureLimiter,
  cache?: ActorCache,
): Promise<Authenticated> {
  const key = extractKey(ctx);
  const blockedFor = key && failures ? failures.blockedFor(ctx.ip) : undefined;
  if (blockedFor !== undefined) {
    throw new DomainError(
      'rate_limited',
      `too many failed authentications from this address; retry after ${blockedFor} s`,
      undefined,
      { 'Retry-After': String(blockedFor) },
    );
  }
  let actor: Authenticated;
  let rate: RateLimitState;
  try {
    ({ actor, rate } = await authenticateAndCount(em, key, limits, new Date(), cache));
  } catch (err) {
    if (key && failures && err instanceof DomainError && err.code === 'unauthenticated') failures.recordFailure(ctx.ip);
    throw err;
  }
  ctx.state.workspaceId = actor.workspaceId;
  ctx.state.keyPrefix = actor.keyPrefix;
  ctx.set({
    'X-RateLimit-Limit-Minute': String(rate.limitMinute),
    'X-RateLimit-Remaining-Minute': String(rate.remainingMinute),
    'X-RateLimit-Limit-Day': String(rate.limitDay),
    'X-RateLimit-Remaining-Day': String(rate.remainingDay),
  });
  if (rate.retryAfter !== undefined) {
    throw new DomainError(
      'rate_limited',
      `rate limit exceeded; retry after ${rate.retryAfter} s and back off exponentially`,
      undefined,
      {
        'Retry-After': String(rate.retryAfter),
      },
    );
  }
  const missing = access.scopes.filter((scope) => !actor.scopes.includes(scope));
  if (missing.length) throw new DomainError('forbidden', `API key lacks the required scope: ${missing.join(', ')}`);
  if (access.roles && !access.roles.includes(actor.role)) {
    throw new DomainError(
      'forbidden',
      `this endpoint requires the ${access.roles.join(' or ')} role; the key's role is ${actor.role}`,
    );
  }
  return actor;
}
