/**
 * Periodic heartbeats while a node's activity works, so that when the worker running it dies
 * (kill -9, OOM, lost host) Temporal notices after the workflow's heartbeatTimeout (seconds) and
 * retries it elsewhere, instead of waiting out the whole start-to-close timeout (minutes).
 */
import { Context } from '@temporalio/activity';

/** Well under the workflows' heartbeat timeout; the SDK throttles what it actually sends. */
export const HEARTBEAT_EVERY_MS = 2000;

export async function withHeartbeats<T>(fn: () => Promise<T>, everyMs = HEARTBEAT_EVERY_MS): Promise<T> {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return fn(); // called directly (tests, scripts): no activity to heartbeat for
  }
  // A local activity cannot heartbeat: the worker running it holds the workflow task and extends it itself.
  if (ctx.info.isLocal) return fn();
  ctx.heartbeat();
  const timer = setInterval(() => ctx.heartbeat(), everyMs);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
