/**
 * Walking an automation graph: adjacency, a stable topological order, reachability, cycles and
 * the successors behind a branch handle. Pure and deterministic (usable in workflow code).
 *
 * Run semantics (`walkGraph`): nodes run one at a time in topological order; a node runs when
 * one of its incoming edges was taken, and at most once, so branches that meet again run the
 * shared node once, after every active branch before it has finished.
 */

export interface GraphNode {
  id: string;
  type: string;
  data?: Record<string, unknown>;
}
export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}
export interface Graph {
  nodes: readonly GraphNode[];
  edges: readonly GraphEdge[];
}

export interface Topology {
  triggerId: string | null;
  /** Every node not on (or behind) a cycle, parents before children, ties in `nodes` order. */
  order: string[];
  /** Nodes left out of `order` because a cycle leads into them. */
  cyclic: string[];
  node(id: string): GraphNode | undefined;
  outgoing(id: string): GraphEdge[];
  incoming(id: string): GraphEdge[];
}

/** '' and undefined are the same as null: an unconditional edge. */
export const handleOf = (e: GraphEdge): string | null =>
  e.sourceHandle === undefined || e.sourceHandle === '' ? null : e.sourceHandle;

export function topology(graph: Graph): Topology {
  const byId = new Map<string, GraphNode>();
  const index = new Map<string, number>();
  graph.nodes.forEach((n, i) => {
    if (!byId.has(n.id)) {
      byId.set(n.id, n);
      index.set(n.id, i);
    }
  });
  const outgoing = new Map<string, GraphEdge[]>();
  const incoming = new Map<string, GraphEdge[]>();
  for (const e of graph.edges) {
    if (!byId.has(e.source) || !byId.has(e.target)) continue;
    outgoing.set(e.source, [...(outgoing.get(e.source) ?? []), e]);
    incoming.set(e.target, [...(incoming.get(e.target) ?? []), e]);
  }
  // Kahn's algorithm, always taking the ready node that comes first in `nodes`.
  const indegree = new Map<string, number>();
  for (const id of byId.keys()) indegree.set(id, (incoming.get(id) ?? []).length);
  const ready = [...byId.keys()].filter((id) => indegree.get(id) === 0);
  const order: string[] = [];
  while (ready.length) {
    ready.sort((a, b) => index.get(a)! - index.get(b)!);
    const id = ready.shift()!;
    order.push(id);
    for (const e of outgoing.get(id) ?? []) {
      const left = indegree.get(e.target)! - 1;
      indegree.set(e.target, left);
      if (left === 0) ready.push(e.target);
    }
  }
  const placed = new Set(order);
  const trigger = graph.nodes.find((n) => n.type === 'trigger');
  return {
    triggerId: trigger?.id ?? null,
    order,
    cyclic: [...byId.keys()].filter((id) => !placed.has(id)),
    node: (id) => byId.get(id),
    outgoing: (id) => outgoing.get(id) ?? [],
    incoming: (id) => incoming.get(id) ?? [],
  };
}

const isTopology = (g: Graph | Topology): g is Topology =>
  'order' in g && typeof (g as Topology).outgoing === 'function';

/**
 * Edges taken when `nodeId` finishes with `handle` (true/false, found/empty/error): the edges
 * with that handle plus the unconditional ones. Without a handle: the unconditional ones only.
 */
export function outgoingEdges(topo: Topology, nodeId: string, handle: string | null = null): GraphEdge[] {
  return topo.outgoing(nodeId).filter((e) => {
    const h = handleOf(e);
    return h === null || (handle !== null && h === handle);
  });
}

/** Target node ids behind `handle` (first-seen order, without duplicates). */
export function successors(graph: Graph | Topology, nodeId: string, handle: string | null = null): string[] {
  const topo = isTopology(graph) ? graph : topology(graph);
  return [...new Set(outgoingEdges(topo, nodeId, handle).map((e) => e.target))];
}

export function reachableFrom(topo: Topology, start: string): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id) || !topo.node(id)) continue;
    seen.add(id);
    for (const e of topo.outgoing(id)) stack.push(e.target);
  }
  return seen;
}

/** One cycle as the edges that form it (first found in `nodes` order), or null. */
export function findCycle(topo: Topology, nodeIds: readonly string[]): GraphEdge[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: GraphEdge[] = [];
  const visit = (id: string): GraphEdge[] | null => {
    state.set(id, 'open');
    for (const e of topo.outgoing(id)) {
      const s = state.get(e.target);
      if (s === 'open') {
        const start = path.findIndex((p) => p.source === e.target);
        return [...(start === -1 ? [] : path.slice(start)), e];
      }
      if (s === undefined) {
        path.push(e);
        const found = visit(e.target);
        if (found) return found;
        path.pop();
      }
    }
    state.set(id, 'done');
    return null;
  };
  for (const id of nodeIds) {
    if (state.has(id)) continue;
    const found = visit(id);
    if (found) return found;
  }
  return null;
}

/** What a node run reports: the handle it leaves through, or stop (failure with `stop`). */
export type NodeOutcome = { handle: string | null } | { stop: true };

/**
 * Runs the graph with the semantics in the header, started either at the trigger or, for a fan-out child, behind
 * `start.nodeId`'s `start.handle` edges: nodes up to and including the start node are not run again. `runNode` does
 * the work (activities, timers); the trigger itself is passed to it too and usually returns handle null.
 */
export async function walkFrom(
  topo: Topology,
  start: { nodeId: string; handle: string } | null | undefined,
  runNode: (node: GraphNode) => Promise<NodeOutcome>,
): Promise<{ ran: string[]; stopped: boolean }> {
  const taken = new Set<string>();
  const ran: string[] = [];
  if (start) for (const e of outgoingEdges(topo, start.nodeId, start.handle)) taken.add(e.id);
  for (const id of topo.order) {
    const isEntry = !start && id === topo.triggerId;
    if (!isEntry && !topo.incoming(id).some((e) => taken.has(e.id))) continue;
    const outcome = await runNode(topo.node(id)!);
    ran.push(id);
    if ('stop' in outcome) return { ran, stopped: true };
    for (const e of outgoingEdges(topo, id, outcome.handle)) taken.add(e.id);
  }
  return { ran, stopped: false };
}

/** Runs the graph from the trigger. */
export const walkGraph = (
  topo: Topology,
  runNode: (node: GraphNode) => Promise<NodeOutcome>,
): Promise<{ ran: string[]; stopped: boolean }> => walkFrom(topo, null, runNode);
