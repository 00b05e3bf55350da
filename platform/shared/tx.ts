import type { Ctx } from '../context';

/**
 * Runs `fn` in one database transaction on the request's own entity manager (keeping its identity
 * map and workspace binding); native updates and the final flush commit or roll back together.
 */
export async function inTransaction<T>(ctx: Ctx, fn: () => Promise<T>): Promise<T> {
  // Nested calls join the outer transaction: em.begin() would open a second, unrelated one and
  // lose the outer context, so an outer rollback (e.g. the inbound endpoint) would not undo them.
  if (ctx.em.isInTransaction()) {
    const result = await fn();
    await ctx.em.flush();
    return result;
  }
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
