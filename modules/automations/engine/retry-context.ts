/**
 * How a retried execution carries its retry in its own row (context.system.retry), the way a fan-out child
 * carries its start point: the starter rebuilds the workflow input from the row alone (engine/start.ts).
 */
export type RetryFrom = 'failed_step' | 'start';
export type RetryDefinition = 'original' | 'current';

export interface RetryContext {
  /** The failed execution this run retries. */
  of: string;
  from: RetryFrom;
  definition: RetryDefinition;
  /** From the failed step: the nodes the retried run completed and the branch each took (null: unconditional). */
  recorded: Record<string, string | null>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The workflow input's `resume` of a row's context.system (empty for every run that is no retry from a step). */
export function resumeOf(system: Record<string, unknown>): { resume?: Record<string, string | null> } {
  const retry = system.retry;
  if (!isObject(retry) || retry.from !== 'failed_step' || !isObject(retry.recorded)) return {};
  const resume: Record<string, string | null> = {};
  for (const [nodeId, handle] of Object.entries(retry.recorded))
    resume[nodeId] = typeof handle === 'string' ? handle : null;
  return { resume };
}
