import type { z } from 'zod';
import { isPublic, type RouteDef } from '../../platform/http/registry';
import { declaredFields } from '../../platform/references/refs';
import type { RefKind } from '../../platform/references/ref-kinds';

/**
 * A body or query field named like an id: `…Id`, `…Ids`, `…Ref`, `…Refs`, owner, assignee(s),
 * approvers, or a record kind used as a link (`company`, `project`, …).
 */
export const ID_LIKE =
  /(^|\.)(\w+Ids?|\w+Refs?|owner|assignees?|approvers|ids|company|project|person|lead|deal)(\[\])?$/;

/**
 * Body and query fields named like ids that are not references to records of this API, or whose
 * kind depends on another field. Every entry says why; a new id-like field that is neither
 * declared with ref('<kind>') nor listed here fails test/unit/references.test.ts.
 */
export const NOT_REFERENCES: Readonly<Record<string, string>> = {
  // List and export filters: they match stored values (the history of a deleted record stays
  // findable by its id) and store nothing; another workspace's id matches nothing. Report filters
  // are declared (an unknown user or flow is 400).
  'query:accountId': 'list filter',
  'query:agentId': 'list filter',
  'query:assignee': 'list filter',
  'query:company': 'list filter',
  'query:companyId': 'list filter',
  'query:companyRef': 'list filter',
  'query:configId': 'list filter',
  'query:dealId': 'list filter',
  'query:dealRef': 'list filter',
  'query:entityId': 'list filter (its kind is the entityType parameter)',
  'query:flowId': 'list filter',
  'query:flowRef': 'list filter (alias of flowId)',
  'query:folderId': 'list filter ("root" or a folder)',
  'query:leadId': 'list filter',
  'query:leadRef': 'list filter',
  'query:offerId': 'list filter',
  'query:owner': 'list filter (alias of ownerId)',
  'query:ownerId': 'list filter',
  'query:parentId': 'list filter ("root" or a folder; a cloud provider folder id when browsing a drive)',
  'query:personId': 'list filter',
  'query:personRef': 'list filter',
  'query:project': 'list filter',
  'query:projectId': 'list filter',
  'query:stageId': 'list filter',
  'query:taskId': 'list filter',
  'query:templateId': 'list filter',
  'query:threadId': 'list filter',
  'body:filters.': 'export filters: the list filters of the export, matched against stored values',
  // Polymorphic targets: the kind comes from entityType (or the list's type); the service resolves
  // each id in the workspace and answers 400/404 or reports it per id; an unknown id is never stored.
  'body:entityId': 'polymorphic (entityType names the kind), checked by the service',
  'body:entityIds[]': 'polymorphic bulk target, resolved per id by the service (unknown ids reported, not stored)',
  'body:ids[]': 'custom object bulk patch targets: unknown ids are answered in notFound, nothing is stored for them',
  // Not records of this API, or keys inside the record's own lists.
  'query:driveId': "a cloud provider's drive id",
  'query:meetingTypeId': "a meeting type key of the booking config's own list",
  'GET /api/v1/bookings/available-slots query:configId':
    'the booking config whose slots are read (unknown: 404, like a path id)',
  'GET /api/v1/bookings/available-slots query:agentId': "narrows the config's own agents (an unknown one has no slots)",
  'POST /api/v1/bookings body:configId':
    "checked by the service in the one statement that reads the config and its agents' load (unknown: 400 naming it)",
  'body:meetingTypeId': "a meeting type key of the booking config's own list",
  'body:fieldId': "an input field key of the offer type's own requiredInputFields",
  'body:productId': "pricing rules: a product key of the calculation's own product list (free text)",
  'body:externalId': "the caller's own id (dedupe key)",
  'body:replyToMessageId': 'an e-mail Message-ID header',
  'body:visitorId': 'a chat visitor id from the support widget',
  'body:groupIds[]': 'sharing groups are not records of this API (stored for the client)',
  'body:driveId': "a cloud provider's drive id",
  'body:parentId': "a cloud provider's folder id",
  'body:itemId': "a cloud provider's item id",
  'POST /api/v1/projects/:id/move body:stageId': 'project stages are a fixed numbered list (1 Planning … 4 Completed)',
  'POST /api/v1/support-tickets/:id/move body:stageId': 'a numbered stage of the support flow (checked by the service)',
};

/** The allow-list entry covering a field: `METHOD path where:path`, `where:path`, `where:<prefix>.` or `where:leaf`. */
export function allowEntry(route: RouteDef, where: 'body' | 'query', path: string): string | undefined {
  const leaf = path.split('.').pop()!;
  const keys = [
    `${route.method} ${route.path} ${where}:${path}`,
    `${where}:${path}`,
    ...path
      .split('.')
      .slice(0, -1)
      .map((_, i, parts) => `${where}:${parts.slice(0, i + 1).join('.')}.`),
    `${where}:${leaf}`,
  ];
  return keys.find((k) => NOT_REFERENCES[k] !== undefined);
}

export interface RouteRef {
  route: RouteDef;
  where: 'body' | 'query';
  /** Path with `[]` for array items, e.g. `recipients[].personId`. */
  path: string;
  kind: RefKind;
}

const walk = (schema: z.ZodType | undefined) => (schema ? declaredFields(schema) : []);

/** Every declared reference field of every authenticated route. */
export function declaredRefs(routes: readonly RouteDef[]): RouteRef[] {
  const out: RouteRef[] = [];
  for (const route of routes.filter((r) => !isPublic(r.access))) {
    for (const [where, schema] of [
      ['query', route.query],
      ['body', route.rawBody ? undefined : route.body],
    ] as const)
      for (const f of walk(schema)) if (f.kind) out.push({ route, where, path: f.path, kind: f.kind });
  }
  const seen = new Set<string>();
  return out.filter((r) => {
    const key = `${r.route.method} ${r.route.path} ${r.where} ${r.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Fields named like ids that declare no reference and are not allow-listed (`METHOD path
 * where:field`), and the allow-list entries that covered something.
 */
export function idFieldAudit(routes: readonly RouteDef[]): { undeclared: string[]; used: Set<string> } {
  const undeclared = new Set<string>();
  const used = new Set<string>();
  for (const route of routes.filter((r) => !isPublic(r.access))) {
    for (const [where, schema] of [
      ['query', route.query],
      ['body', route.rawBody ? undefined : route.body],
    ] as const) {
      const fields = walk(schema);
      const declared = new Set(fields.filter((f) => f.kind).map((f) => f.path));
      for (const f of fields) {
        if (f.kind || declared.has(f.path) || !ID_LIKE.test(f.path)) continue;
        const entry = allowEntry(route, where, f.path);
        if (entry) used.add(entry);
        else undeclared.add(`${route.method} ${route.path} ${where}:${f.path}`);
      }
    }
  }
  return { undeclared: [...undeclared].sort(), used };
}
