import type { Ctx } from '../context';

/**
 * Runs `fn` in one database transaction on the request's own entity manager (keeping its identity
 * map and workspace binding); native updates and the final flush commit or roll back together.
 */
export async function inTransaction<T>(ctx: Ctx, fn: () => Promise<T>): Promise<T> {
  await ctx.em.begin();
  try {
    const result = await fn();
    await ctx.em.flush();
    await ctx.em.commit();
    return result;
  } catch (err) {
    await ctx.em.rollback();
    throw err;
  }
}
