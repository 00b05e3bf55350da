/**
 * References inside automation and sequence graphs: node data is free JSON at the HTTP edge, so
 * each graph says which schema reads which part of a node (`NodePart`) and the ids that schema
 * declares with `ref('<kind>')` are checked here at save and at activation. A record deleted
 * later still fails its step at run time (the step's own lookup).
 */
import type { z } from 'zod';
import type { Ctx } from '../context';
import { DomainError } from '../errors';
import { missingRefs } from './references.service';
import { collectRefs, type FoundRef } from './refs';

/** One part of one node read by one schema, e.g. an action's `data.config`. */
export interface NodePart {
  nodeId: string;
  /** Path of the part in the request, e.g. `nodes[3].data.config`. */
  base: string;
  schema: z.ZodType;
  value: unknown;
}

/** A reference of a graph that names no record of the workspace (`details` entry of the 400). */
export interface GraphRefIssue {
  path: string;
  nodeId: string;
  /** The field inside the node part, e.g. `sequenceId` or `attachments[0].workspaceFileId`. */
  field: string;
  error: string;
}

/** `{{placeholders}}` are resolved at run time, so only literal ids are checked. */
const isLiteral = (id: string): boolean => !id.includes('{{');

export async function graphRefIssues(ctx: Ctx, parts: readonly NodePart[]): Promise<GraphRefIssue[]> {
  const found: (FoundRef & { nodeId: string; field: string })[] = [];
  for (const part of parts)
    for (const r of collectRefs(part.schema, part.value)) {
      const id = r.id.trim();
      if (id && isLiteral(id))
        found.push({
          ...r,
          id,
          nodeId: part.nodeId,
          field: r.path,
          path: r.path ? `${part.base}.${r.path}` : part.base,
        });
    }
  if (!found.length) return [];
  const missing = await missingRefs(ctx, found);
  const byPath = new Map(found.map((f) => [f.path, f]));
  return missing.map((m) => {
    const f = byPath.get(m.path)!;
    return { path: m.path, nodeId: f.nodeId, field: f.field, error: m.error };
  });
}

/** 400 with every missing reference (`details` name the node id and the field). */
export function throwGraphRefIssues(issues: readonly GraphRefIssue[]): void {
  if (!issues.length) return;
  const first = issues[0]!;
  throw new DomainError(
    'validation',
    `${first.path} (node ${first.nodeId}): ${first.error}` +
      (issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''),
    issues,
  );
}

export async function assertGraphRefs(ctx: Ctx, parts: readonly NodePart[]): Promise<void> {
  throwGraphRefIssues(await graphRefIssues(ctx, parts));
}
