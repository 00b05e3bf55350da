import type { Ctx } from '../../platform/context';
import { graphRefIssues, type GraphRefIssue, type NodePart } from '../../platform/references/graph';
import { triggerSchema, type SequenceNode, type SequenceTrigger } from './definition.schemas';
import { NODE_DATA_SCHEMAS } from './nodes.schemas';

/** The parts of a sequence whose schemas declare references: each node's data and each trigger. */
export function sequenceParts(nodes: readonly SequenceNode[], triggers: readonly SequenceTrigger[] = []): NodePart[] {
  return [
    ...nodes.flatMap((n, i): NodePart[] => {
      const schema = NODE_DATA_SCHEMAS[n.type];
      return schema ? [{ nodeId: n.id, base: `nodes[${i}].data`, schema, value: n.data }] : [];
    }),
    ...triggers.map((t, i) => ({
      nodeId: t.id ?? `triggers[${i}]`,
      base: `triggers[${i}]`,
      schema: triggerSchema,
      value: t,
    })),
  ];
}

/**
 * Every id a sequence's steps and triggers name (templates, mailboxes, files, users, source
 * sequences) exists in the workspace: checked on write and on activation; a record deleted later
 * fails its step when it runs.
 */
export function sequenceRefIssues(
  ctx: Ctx,
  nodes: readonly SequenceNode[],
  triggers: readonly SequenceTrigger[] = [],
): Promise<GraphRefIssue[]> {
  return graphRefIssues(ctx, sequenceParts(nodes, triggers));
}
