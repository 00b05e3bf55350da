/**
 * Meaning-level validation of an automation graph (the zod schemas check its shape): one
 * trigger, unique ids, edges between existing nodes with handles their source can produce,
 * known trigger/action types with their required config, valid logic-node data, every node
 * reachable from the trigger, and no cycles. Errors carry paths such as
 * `nodes[3].data.config.noteContent`; warnings (deprecated actions, placeholders that can never
 * resolve) do not block saving.
 */
import { ACTION_CONFIG_SCHEMAS, ACTION_FIELD_HINTS, DEPRECATED_ACTION_REPLACEMENTS } from './action-config.schemas';
import {
  ACTION_TYPES,
  DEPRECATED_ACTIONS,
  EDGE_HANDLES,
  LEGACY_TRIGGERS,
  MAX_EDGES,
  MAX_NODES,
  NODE_TYPES,
  TRIGGER_TYPES,
  executionSettingsPatchSchema,
  rateLimitsPatchSchema,
  type ActionType,
  type TriggerType,
} from './definition.schemas';
import {
  TRIGGER_CONFIG_SCHEMAS,
  aiDataSchema,
  conditionDataSchema,
  delayDataSchema,
  lookupDataSchema,
} from './node-data.schemas';
import { AUTOMATION_NAMESPACES, listPlaceholders, pathProblem } from '../../platform/shared/placeholders.pure';
import { findCycle, handleOf, reachableFrom, topology, type GraphEdge, type GraphNode } from './topology.pure';
import { isPlainObject, issuesOf, joinPath, type ValidationIssue } from '../../platform/shared/zod-kit';

export {
  outgoingEdges,
  successors,
  topology,
  walkGraph,
  type Graph,
  type GraphEdge,
  type GraphNode,
  type NodeOutcome,
  type Topology,
} from './topology.pure';

export type GraphValidation =
  { ok: true; warnings: ValidationIssue[] } | { ok: false; errors: ValidationIssue[]; warnings: ValidationIssue[] };

export interface GraphValidationOptions {
  /** Checked with the same bounds as the PUT body (paths `executionSettings.…`, `rateLimits.…`). */
  executionSettings?: unknown;
  rateLimits?: unknown;
  /** A draft with no nodes and no edges passes (it cannot be activated). */
  allowEmpty?: boolean;
}

const quote = (v: unknown): string => JSON.stringify(v);

/** Adds "you sent X; this action reads Y" to a missing-field error when the alias is present. */
function withHint(
  actionType: ActionType,
  config: Record<string, unknown>,
  base: string,
  issue: ValidationIssue,
): ValidationIssue {
  const hints = ACTION_FIELD_HINTS[actionType];
  if (!hints || !issue.error.startsWith('is required')) return issue;
  const rel = issue.path.slice(base.length).replace(/^\./, '');
  const segs = rel
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter(Boolean);
  const key = segs[segs.length - 1];
  const alias = key ? hints[key] : undefined;
  let parent: unknown = config;
  for (const s of segs.slice(0, -1))
    parent = isPlainObject(parent) || Array.isArray(parent) ? (parent as Record<string, unknown>)[s] : undefined;
  if (!alias || !isPlainObject(parent) || parent[alias] === undefined) return issue;
  return { ...issue, error: `is required (found "${alias}": ${actionType} reads ${key}, not ${alias})` };
}

/** Warnings for placeholders in any string under `value` that can never resolve. */
function placeholderWarnings(value: unknown, path: string, out: ValidationIssue[], depth = 0): void {
  if (typeof value === 'string') {
    for (const p of listPlaceholders(value)) {
      const problem = pathProblem(p.segments);
      if (problem === 'bare_name')
        out.push({
          path,
          error: `{{${p.path}}} has no namespace and renders empty; write e.g. {{contact.${p.path}}} or {{lead.${p.path}}}`,
        });
      else if (problem === 'unknown_namespace')
        out.push({
          path,
          error: `{{${p.path}}} uses unknown namespace "${p.segments[0]}" and renders empty (known: ${AUTOMATION_NAMESPACES.join(', ')})`,
        });
    }
  } else if (depth < 10 && Array.isArray(value))
    value.forEach((v, i) => placeholderWarnings(v, `${path}[${i}]`, out, depth + 1));
  else if (depth < 10 && isPlainObject(value))
    for (const [k, v] of Object.entries(value)) placeholderWarnings(v, joinPath(path, [k]), out, depth + 1);
}

/** What is wrong with a node's triggerType / actionType: missing, or not one of `known`; undefined when fine. */
function typeProblem(value: unknown, known: readonly string[], what: string): string | undefined {
  if (value === undefined || value === '') return 'is required';
  if (!(known as readonly unknown[]).includes(value)) return `unknown ${what} type ${quote(value)}`;
  return undefined;
}

function validateNodeData(node: GraphNode, base: string, errors: ValidationIssue[], warnings: ValidationIssue[]): void {
  const data = isPlainObject(node.data) ? node.data : {};
  const dataPath = `${base}.data`;
  switch (node.type) {
    case 'trigger': {
      const t = data.triggerType;
      const badType = typeProblem(t, TRIGGER_TYPES, 'trigger');
      if (badType) return void errors.push({ path: `${dataPath}.triggerType`, error: badType });
      if (data.config !== undefined && data.config !== null && !isPlainObject(data.config))
        return void errors.push({ path: `${dataPath}.config`, error: 'must be an object' });
      const schema = TRIGGER_CONFIG_SCHEMAS[t as TriggerType];
      if (schema) errors.push(...issuesOf(schema, data.config ?? {}, `${dataPath}.config`));
      if ((LEGACY_TRIGGERS as readonly unknown[]).includes(t)) {
        warnings.push({
          path: `${dataPath}.triggerType`,
          error: `${String(t)} is a legacy trigger; prefer ${String(t).endsWith('_created') ? 'record_created' : 'record_changed'} with entityTypes`,
        });
      }
      return;
    }
    case 'action': {
      const a = data.actionType;
      const badType = typeProblem(a, ACTION_TYPES, 'action');
      if (badType) return void errors.push({ path: `${dataPath}.actionType`, error: badType });
      const actionType = a as ActionType;
      const configPath = `${dataPath}.config`;
      if (data.config !== undefined && !isPlainObject(data.config))
        return void errors.push({ path: configPath, error: 'must be an object' });
      const config = isPlainObject(data.config) ? data.config : {};
      errors.push(
        ...issuesOf(ACTION_CONFIG_SCHEMAS[actionType], config, configPath).map((i) =>
          withHint(actionType, config, configPath, i),
        ),
      );
      if ((DEPRECATED_ACTIONS as readonly string[]).includes(actionType)) {
        warnings.push({
          path: `${dataPath}.actionType`,
          error: `${actionType} is deprecated; use ${DEPRECATED_ACTION_REPLACEMENTS[actionType]}`,
        });
      }
      placeholderWarnings(config, configPath, warnings);
      return;
    }
    case 'condition':
      return void errors.push(...issuesOf(conditionDataSchema, data, dataPath));
    case 'delay':
      return void errors.push(...issuesOf(delayDataSchema, data, dataPath));
    case 'ai':
      errors.push(...issuesOf(aiDataSchema, data, dataPath));
      return placeholderWarnings(data.prompt, `${dataPath}.prompt`, warnings);
    case 'lookup':
      errors.push(...issuesOf(lookupDataSchema, data, dataPath));
      if (Array.isArray(data.filters))
        data.filters.forEach((f, i) =>
          placeholderWarnings(isPlainObject(f) ? f.value : undefined, `${dataPath}.filters[${i}].value`, warnings),
        );
      return;
  }
}

/** Handles a source node may leave through; null means only unconditional edges. */
function allowedHandles(type: string): readonly (string | null)[] {
  if (type === 'condition' || type === 'lookup') return EDGE_HANDLES[type];
  // An AI node continues unconditionally, or branches like a condition (the spec's "AI condition").
  if (type === 'ai') return [null, ...EDGE_HANDLES.ai];
  return [null];
}

export function validateAutomationGraph(
  nodes: readonly GraphNode[],
  edges: readonly GraphEdge[],
  options: GraphValidationOptions = {},
): GraphValidation {
  const errors: ValidationIssue[] = [];
  const warnings: ValidationIssue[] = [];
  const done = (): GraphValidation => (errors.length ? { ok: false, errors, warnings } : { ok: true, warnings });

  if (options.executionSettings !== undefined)
    errors.push(...issuesOf(executionSettingsPatchSchema, options.executionSettings, 'executionSettings'));
  if (options.rateLimits !== undefined)
    errors.push(...issuesOf(rateLimitsPatchSchema, options.rateLimits, 'rateLimits'));
  if (!Array.isArray(nodes)) return (errors.push({ path: 'nodes', error: 'must be an array' }), done());
  if (!Array.isArray(edges)) return (errors.push({ path: 'edges', error: 'must be an array' }), done());
  if (nodes.length > MAX_NODES) errors.push({ path: 'nodes', error: `at most ${MAX_NODES} nodes` });
  if (edges.length > MAX_EDGES) errors.push({ path: 'edges', error: `at most ${MAX_EDGES} edges` });
  if (options.allowEmpty && nodes.length === 0 && edges.length === 0) return done();

  // Nodes: unique ids, known types, exactly one trigger, data per type.
  const firstIndex = new Map<string, number>();
  const triggers: number[] = [];
  const nodeErrorsAt = errors.length;
  nodes.forEach((node, i) => {
    const base = `nodes[${i}]`;
    if (typeof node?.id !== 'string' || node.id === '')
      return void errors.push({ path: `${base}.id`, error: 'is required' });
    const seen = firstIndex.get(node.id);
    if (seen !== undefined)
      errors.push({ path: `${base}.id`, error: `duplicate node id ${quote(node.id)} (also nodes[${seen}])` });
    else firstIndex.set(node.id, i);
    if (!(NODE_TYPES as readonly string[]).includes(node.type))
      return void errors.push({ path: `${base}.type`, error: `must be one of ${NODE_TYPES.join(', ')}` });
    if (node.type === 'trigger') triggers.push(i);
    validateNodeData(node, base, errors, warnings);
  });
  if (triggers.length === 0)
    errors.splice(nodeErrorsAt, 0, { path: 'nodes', error: 'needs exactly one trigger node; found none' });
  for (const i of triggers.slice(1))
    errors.push({
      path: `nodes[${i}].type`,
      error: `only one trigger node is allowed (nodes[${triggers[0]}] is the trigger)`,
    });

  // Edges: unique ids, existing endpoints, nothing into the trigger, valid handles, no duplicates.
  const edgeIds = new Map<string, number>();
  const links = new Map<string, number>();
  const usable: GraphEdge[] = [];
  edges.forEach((edge, k) => {
    const base = `edges[${k}]`;
    let ok = true;
    const fail = (path: string, error: string) => {
      errors.push({ path, error });
      ok = false;
    };
    if (typeof edge?.id !== 'string' || edge.id === '') fail(`${base}.id`, 'is required');
    else if (edgeIds.has(edge.id))
      fail(`${base}.id`, `duplicate edge id ${quote(edge.id)} (also edges[${edgeIds.get(edge.id)}])`);
    else edgeIds.set(edge.id, k);
    const source = firstIndex.has(edge?.source) ? nodes[firstIndex.get(edge.source)!]! : undefined;
    const target = firstIndex.has(edge?.target) ? nodes[firstIndex.get(edge.target)!]! : undefined;
    if (!source) fail(`${base}.source`, `unknown node ${quote(edge?.source)}`);
    if (!target) fail(`${base}.target`, `unknown node ${quote(edge?.target)}`);
    if (target?.type === 'trigger') fail(`${base}.target`, 'no edge may lead into the trigger node');
    if (source) {
      const handle = handleOf(edge);
      const allowed = allowedHandles(source.type);
      if (!allowed.includes(handle)) {
        const names = allowed.filter((h): h is string => h !== null);
        fail(
          `${base}.sourceHandle`,
          names.length === 0
            ? `must be null: a ${source.type} node does not branch`
            : handle === null
              ? `is required from a ${source.type} node (${names.join(', ')})`
              : `${quote(handle)} is not a handle of a ${source.type} node (${names.join(', ')}${allowed.includes(null) ? ', or null' : ''})`,
        );
      }
    }
    // An edge with a bad id or handle still connects its nodes (no follow-up "unreachable" noise).
    if (source && target && target.type !== 'trigger') usable.push(edge);
    if (!ok) return;
    const link = `${edge.source}\u0000${handleOf(edge) ?? ''}\u0000${edge.target}`;
    if (links.has(link))
      return void errors.push({
        path: base,
        error: `duplicates edges[${links.get(link)}] (same source, handle and target)`,
      });
    links.set(link, k);
  });

  // Structure: no cycles (an execution must end), everything reachable from the trigger.
  const uniqueNodes = nodes.filter((n, i) => typeof n?.id === 'string' && firstIndex.get(n.id) === i);
  const topo = topology({ nodes: uniqueNodes, edges: usable });
  const cycle = findCycle(
    topo,
    uniqueNodes.map((n) => n.id),
  );
  if (cycle) {
    const last = cycle[cycle.length - 1]!;
    const route = [...cycle.map((e) => e.source), last.target].join(' → ');
    errors.push({
      path: `edges[${edges.indexOf(last)}]`,
      error: `creates a cycle (${route}); automations run to completion, so loops are not allowed`,
    });
  }
  if (triggers.length === 1) {
    const reachable = reachableFrom(topo, nodes[triggers[0]!]!.id);
    uniqueNodes.forEach((n) => {
      if (!reachable.has(n.id))
        errors.push({
          path: `nodes[${firstIndex.get(n.id)}]`,
          error: `node ${quote(n.id)} is not reachable from the trigger; connect it or remove it`,
        });
    });
  }
  return done();
}

/** "nodes[3].data.config.noteContent: is required" (+ how many more), for the 400 message. */
export function formatGraphErrors(errors: readonly ValidationIssue[]): string {
  const [first] = errors;
  if (!first) return 'invalid automation graph';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''})` : '';
  return `${first.path}: ${first.error}${more}`;
}
