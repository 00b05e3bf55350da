import type { Ctx } from '../../platform/context';
import { assertGraphRefs, type NodePart } from '../../platform/references/graph';
import { ACTION_CONFIG_SCHEMAS } from './action-config.schemas';
import type { ActionType, TriggerType } from './definition.schemas';
import { TRIGGER_CONFIG_SCHEMAS, lookupDataSchema } from './node-data.schemas';
import { isPlainObject } from '../../platform/shared/zod-kit';
import { z } from 'zod';
import { ref } from '../../platform/references/refs';

/** `assignTo` of create_task and create_recall: a keyword, else a user id (checked like any reference). */
const ASSIGN_TO_KEYWORDS = new Set(['owner', 'creator', 'placeholder']);
const assignToUser = z.object({ assignTo: ref('user', z.string()) });

interface NodeLike {
  id: string;
  type: string;
  data?: Record<string, unknown>;
}

/** The parts of an automation's nodes whose schemas declare references (trigger and action configs, lookups). */
export function automationNodeParts(nodes: readonly NodeLike[]): NodePart[] {
  return nodes.flatMap((node, i): NodePart[] => {
    const data = isPlainObject(node.data) ? node.data : {};
    const base = `nodes[${i}].data`;
    if (node.type === 'trigger') {
      const schema = TRIGGER_CONFIG_SCHEMAS[data.triggerType as TriggerType];
      return schema ? [{ nodeId: node.id, base: `${base}.config`, schema, value: data.config }] : [];
    }
    if (node.type === 'action') {
      const schema = ACTION_CONFIG_SCHEMAS[data.actionType as ActionType];
      const parts: NodePart[] = schema ? [{ nodeId: node.id, base: `${base}.config`, schema, value: data.config }] : [];
      const assignTo = isPlainObject(data.config) ? data.config.assignTo : undefined;
      if (typeof assignTo === 'string' && !ASSIGN_TO_KEYWORDS.has(assignTo.trim()))
        parts.push({ nodeId: node.id, base: `${base}.config`, schema: assignToUser, value: data.config });
      return parts;
    }
    if (node.type === 'lookup') return [{ nodeId: node.id, base, schema: lookupDataSchema, value: data }];
    return [];
  });
}

/**
 * Every id an automation's trigger and nodes name (sequences, lists, templates, mailboxes, stages,
 * flows, users, custom objects, booking configs, calculator templates) exists in the workspace;
 * checked on create, update and activation (400 naming the node and the field).
 */
export async function assertAutomationRefs(ctx: Ctx, nodes: readonly NodeLike[]): Promise<void> {
  await assertGraphRefs(ctx, automationNodeParts(nodes));
}
