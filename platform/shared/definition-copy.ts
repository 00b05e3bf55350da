import type { Ctx } from '../context';

const COPY_SUFFIX = ' (copy)';
/** A definition's name column holds this many characters. */
const NAME_LENGTH = 200;

interface GraphDefinition<N, E> {
  name: string;
  description?: string | null;
  nodes: N[];
  edges: E[];
}

/**
 * What a copy of a graph definition (an automation, a sequence) takes from its source: the name with " (copy)"
 * (cut to fit the column), the description and the same graph, node ids included (they are per definition);
 * the copy is inactive and the actor created it. The caller adds its settings and fresh counters.
 */
export function definitionCopy<N, E>(ctx: Ctx, source: GraphDefinition<N, E>) {
  return {
    name: source.name.slice(0, NAME_LENGTH - COPY_SUFFIX.length) + COPY_SUFFIX,
    description: source.description ?? null,
    isActive: false,
    nodes: structuredClone(source.nodes),
    edges: structuredClone(source.edges),
    createdBy: ctx.actor.userId,
  };
}
