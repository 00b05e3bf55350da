/**
 * Pure helpers of the execution workflow (no I/O, no clock): the graph walk with an optional
 * start point for fan-out children, delay lengths, and context merging.
 */
import type { GraphNode } from '../topology.pure';
import { waitDurationOf } from '../../../platform/shared/wait-duration';
import type { Context } from './types.pure';

/** The graph walk, with an optional start point for fan-out children (topology.pure.ts). */
export { walkFrom } from '../topology.pure';

/**
 * Milliseconds of a delay node (the wait alias family of shared/wait-duration, the same reading
 * as the graph validator). Exact, not rounded to the spec's 5-minute processor ticks: a durable
 * timer has no ticks.
 */
export function delayMsOf(data: Record<string, unknown> | undefined): number | null {
  const wait = waitDurationOf(data);
  return wait.ok ? wait.ms : null;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Later outputs replace earlier ones per key; `lookup` merges per node/alias so lookups accumulate. */
export function mergeContext(context: Context, patch: Context | undefined): Context {
  if (!patch) return context;
  const out: Context = { ...context };
  for (const [key, value] of Object.entries(patch)) {
    out[key] = key === 'lookup' && isObject(value) && isObject(out.lookup) ? { ...out.lookup, ...value } : value;
  }
  return out;
}

/** Short, stable message of an error chain (ActivityFailure → ApplicationFailure → message). */
export function failureMessage(err: unknown): string {
  let cur: unknown = err;
  for (let i = 0; i < 5 && isObject(cur); i++) {
    const cause = (cur as { cause?: unknown }).cause;
    if (!cause) break;
    cur = cause;
  }
  const msg = cur instanceof Error ? cur.message : typeof cur === 'string' ? cur : String(cur);
  return msg.slice(0, 2000);
}

/** How a node's activity or timer is named in the Temporal Web UI: `create_note · action_3`. */
export function nodeSummary(node: GraphNode): string {
  const data = node.data ?? {};
  const what = typeof data.actionType === 'string' && data.actionType ? data.actionType : node.type;
  return `${what} · ${node.id}`.slice(0, 200);
}
