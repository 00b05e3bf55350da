/**
 * The registry of every Temporal workflow kind (DESIGN.md "Workflow ids"): its workflow type (the function
 * exported by the generated bundle entry, temporal/bundle-options.ts), its id `<kind>:<workspaceId>:<id>`, the
 * search attributes and memo it is started with, and the one-line summary operators see in the Web UI.
 * Pure (no Temporal, no I/O): the API, the domain, activities and workflow code all import it.
 *
 * Each kind carries the type of its workflow's input (declared in the kind's `<kind>.messages.ts`
 * beside its signals, updates and queries): starting a kind with another input fails tsc.
 *
 * This file holds what every kind shares (`defineWorkflowKind`, the search attributes); a module declares each of its
 * kinds in its own `<kind>.kind.ts` (modules/bookings/booking-approval.kind.ts), so that platform imports no module.
 * The kind is named in its module's `workflows` (WORKFLOW_KINDS in app/modules.ts derives from the modules) and has
 * a replay fixture; test/unit/temporal/workflow-kinds.test.ts fails until the workflow is exported and the fixture
 * exists.
 */

/**
 * Search attributes registered on the server (infra/search-attributes.ts): ids and enum-like values, never personal
 * data.
 */
export type CrmSearchAttribute =
  'CrmWorkspaceId' | 'CrmAutomationId' | 'CrmSequenceId' | 'CrmEntityType' | 'CrmEntityId' | 'CrmTriggerType';
export type SearchAttributes = Partial<Record<CrmSearchAttribute, string>>;

export interface WorkflowKindSpec<Meta> {
  /** Id prefix, kebab-case: ids are `<kind>:<workspaceId>:<id>`. */
  kind: string;
  /** Name of the workflow function (exported by a `*.workflow.ts` file; the bundle entry re-exports them all). */
  workflowType: string;
  /** Recorded histories in test/fixtures replayed against the current code (at least one). */
  replayFixtures: readonly string[];
  searchAttributes(meta: Meta): SearchAttributes;
  /** Readable names and ids for the UI (memo is encrypted by the payload codec; no secrets). */
  memo(meta: Meta): Record<string, unknown>;
  /** One line (Temporal `staticSummary`), names and ids only: no e-mails, phones or secrets. */
  summary(meta: Meta): string;
  /** Optional markdown (Temporal `staticDetails`). */
  details?(meta: Meta): string;
}

/** Brands a kind with its input type (no run-time value). */
declare const inputType: unique symbol;

export interface WorkflowKind<Meta = unknown, Input = unknown> extends WorkflowKindSpec<Meta> {
  workflowId(workspaceId: string, id: string): string;
  /** The workspace and id of one of this kind's workflow ids, or null. */
  parseId(workflowId: string): { workspaceId: string; id: string } | null;
  /** Type only, absent at run time: what the kind's workflow is started with (its one argument). */
  readonly [inputType]?: Input;
}

/** The input type of a kind (`InputOf<typeof bookingApprovalKind>`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type InputOf<K> = K extends WorkflowKind<any, infer Input> ? Input : never;

const OBJECT_ID = '[0-9a-f]{24}';
/** Keeps summaries one short line whatever a name holds. */
const MAX_NAME = 80;

export function quoteName(name: string | null | undefined): string {
  const oneLine = (name ?? '').replace(/\s+/g, ' ').trim();
  return `"${oneLine.length > MAX_NAME ? `${oneLine.slice(0, MAX_NAME - 1)}…` : oneLine}"`;
}

/** `Input` is the workflow's input type (from the kind's `.messages.ts`); `Meta` what the UI fields are built from. */
export function defineWorkflowKind<Meta, Input>(spec: WorkflowKindSpec<Meta>): WorkflowKind<Meta, Input> {
  if (!/^[a-z][a-z0-9-]*$/.test(spec.kind)) throw new Error(`workflow kind "${spec.kind}" must be kebab-case`);
  const re = new RegExp(`^${spec.kind}:(${OBJECT_ID}):(${OBJECT_ID})$`);
  return {
    ...spec,
    workflowId: (workspaceId, id) => `${spec.kind}:${workspaceId}:${id}`,
    parseId(workflowId) {
      const m = re.exec(workflowId);
      return m ? { workspaceId: m[1]!, id: m[2]! } : null;
    },
  };
}
