/**
 * A sequence definition: settings with the spec's defaults, the create/update bodies and the
 * graph check (exactly one start node, edges between existing nodes, branch handles, every
 * node's data). Errors carry paths such as `nodes[2].data.subject`.
 */
import { z } from 'zod';
import {
  edgeSchema,
  executionSettingsPatchSchema,
  executionSettingsSchema,
  NODE_ID_RE,
  DEFAULT_EXECUTION_SETTINGS,
  SEQUENCE_TRIGGERS,
} from '../automations/index.schemas';
import type { SequenceEventName } from './sequences.events';
import {
  isPlainObject,
  zArray,
  zBoolean,
  zEnum,
  zInt,
  zJsonObject,
  zNumber,
  zObject,
  zRequiredText,
  zStrictObject,
  zString,
  type ValidationIssue,
} from '../../platform/shared/zod-kit';
import {
  ACTION_NODE_TYPES,
  BRANCHING_NODE_TYPES,
  SEQUENCE_NODE_TYPES,
  nodeDataIssues,
  type SequenceNodeType,
} from './nodes.schemas';
import { HHMM_RE } from './send-window.pure';
import { ref } from '../../platform/references/refs';

export const ENTITY_TYPES = ['Lead', 'People', 'Deal', 'Company'] as const;
export type EnrollEntityType = (typeof ENTITY_TYPES)[number];
export const DUPLICATE_MODES = ['block', 'block_with_restart', 'allow_multiple'] as const;
export type DuplicateHandling = (typeof DUPLICATE_MODES)[number];
/** The enrollment events, as automations take them for triggers. */
export const SEQUENCE_EVENTS = SEQUENCE_TRIGGERS satisfies readonly SequenceEventName[];
export const MAX_NODES = 200;
export const MAX_EDGES = 400;
export const MAX_TRIGGERS = 20;

// Building a DateTimeFormat costs ~0.3 ms, and every read of a sequence validates its settings' zone:
// the answer per zone name is kept (bounded; the names in use are few).
const zoneChecks = new Map<string, boolean>();
const validZone = (tz: string): boolean => {
  let valid = zoneChecks.get(tz);
  if (valid !== undefined) return valid;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    valid = true;
  } catch {
    valid = false;
  }
  if (zoneChecks.size >= 1000) zoneChecks.clear();
  zoneChecks.set(tz, valid);
  return valid;
};
const hhmm = () => zString().regex(HHMM_RE, 'must be HH:mm (00:00-23:59)');
const objectId = () => zString().regex(/^[0-9a-f]{24}$/, 'must be a 24-character hex id');

export const exitConditionsSchema = zStrictObject({
  onEmailReply: zBoolean().default(true),
  onSmsReply: zBoolean().default(true),
  onMeetingBooked: zBoolean().default(true),
  onDealStageChange: zStrictObject({
    enabled: zBoolean().default(false),
    stages: zArray(z.union([zNumber(), zString().max(100)]))
      .max(100)
      .default([]),
  }).default({ enabled: false, stages: [] }),
  onLeadStatusChange: zStrictObject({
    enabled: zBoolean().default(false),
    statuses: zArray(zString().trim().min(1).max(50)).max(100).default([]),
  }).default({ enabled: false, statuses: [] }),
});
export type ExitConditions = z.infer<typeof exitConditionsSchema>;

export const sendSettingsSchema = zStrictObject({
  businessHoursOnly: zBoolean().default(false),
  businessStart: hhmm().default('08:00'),
  businessEnd: hhmm().default('16:30'),
  timezone: zString()
    .max(64)
    .refine(validZone, 'must be an IANA time zone such as Europe/Copenhagen')
    .default('Europe/Copenhagen'),
  skipWeekends: zBoolean().default(false),
  smsQuietHoursEnabled: zBoolean().default(false),
  smsQuietHoursStart: hhmm().default('20:00'),
  smsQuietHoursEnd: hhmm().default('08:00'),
  emailIntervalSeconds: zInt().min(0).max(86_400).nullable().default(null),
}).superRefine((s, ctx) => {
  if (s.businessHoursOnly && s.businessStart >= s.businessEnd)
    ctx.addIssue({ code: 'custom', path: ['businessEnd'], message: 'must be after businessStart' });
});
export type SendSettings = z.infer<typeof sendSettingsSchema>;

export const trackingSettingsSchema = zStrictObject({
  trackOpens: zBoolean().default(true),
  trackClicks: zBoolean().default(false),
});
export type TrackingSettings = z.infer<typeof trackingSettingsSchema>;

/** Auto-enrollment triggers. */
export const triggerSchema = z.discriminatedUnion(
  'type',
  [
    zObject({
      type: z.literal('field_change'),
      id: zString().max(100).optional(),
      entityType: zEnum(ENTITY_TYPES),
      field: zRequiredText(200),
      operator: zEnum(['changed', 'equals', 'not_equals', 'contains'] as const).default('equals'),
      value: z.unknown().optional(),
    }),
    zObject({
      type: z.literal('entity_created'),
      id: zString().max(100).optional(),
      entityType: zEnum(ENTITY_TYPES),
      filters: zJsonObject().default({}),
    }),
    zObject({
      type: z.literal('sequence_event'),
      id: zString().max(100).optional(),
      sourceSequenceId: ref('sequence', objectId()),
      event: zEnum(SEQUENCE_EVENTS),
    }),
  ],
  { error: () => 'type must be one of field_change, entity_created, sequence_event' },
);
export type SequenceTrigger = z.infer<typeof triggerSchema>;

export const DEFAULT_SETTINGS = {
  allowedEntityTypes: [...ENTITY_TYPES] as EnrollEntityType[],
  exitConditions: exitConditionsSchema.parse({}),
  sendSettings: sendSettingsSchema.parse({}),
  trackingSettings: trackingSettingsSchema.parse({}),
  duplicateHandling: 'block_with_restart' as DuplicateHandling,
  triggers: [] as SequenceTrigger[],
  aiSettings: {} as Record<string, unknown>,
  executionSettings: DEFAULT_EXECUTION_SETTINGS,
  defaultSenderType: null as 'fixed' | 'owner' | null,
  defaultSenderId: null as string | null,
  defaultSmsNumber: null as string | null,
};

const nodeSchema = zObject({
  id: zString().regex(NODE_ID_RE, 'must be 1-100 characters without spaces, dots, braces or |'),
  type: zEnum(SEQUENCE_NODE_TYPES),
  position: zObject({ x: zNumber(), y: zNumber() }).default({ x: 0, y: 0 }),
  data: zJsonObject().default({}),
});
export type SequenceNode = z.infer<typeof nodeSchema>;
export type SequenceEdge = z.infer<typeof edgeSchema>;

const description = zString()
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .nullable()
  .transform((v) => (v === '' || v === null ? null : v));
const settingsShape = {
  allowedEntityTypes: zArray(zEnum(ENTITY_TYPES)).min(1).max(4),
  exitConditions: exitConditionsSchema,
  sendSettings: sendSettingsSchema,
  trackingSettings: trackingSettingsSchema,
  duplicateHandling: zEnum(DUPLICATE_MODES),
  triggers: zArray(triggerSchema).max(MAX_TRIGGERS, `at most ${MAX_TRIGGERS} triggers`),
  aiSettings: zJsonObject().refine((o) => JSON.stringify(o).length <= 16_384, 'must be at most 16 KB of JSON'),
  executionSettings: executionSettingsSchema,
  defaultSenderType: zEnum(['fixed', 'owner'] as const).nullable(),
  // A 24-hex value names a connected mailbox (the send step uses it); anything else is a display sender.
  defaultSenderId: z.union([ref('email-account', objectId()), zString().trim().max(100)]).nullable(),
  defaultSmsNumber: zString().trim().max(50).nullable(),
};

export const sequenceCreateBody = zObject({
  name: zRequiredText(200),
  description: description.optional(),
  nodes: zArray(nodeSchema).max(MAX_NODES, `at most ${MAX_NODES} nodes`).optional(),
  edges: zArray(edgeSchema).max(MAX_EDGES, `at most ${MAX_EDGES} edges`).optional(),
  ...Object.fromEntries(Object.entries(settingsShape).map(([k, v]) => [k, v.optional()])),
}) as unknown as z.ZodType<SequenceBody>;

/** PUT: every key optional; settings objects merge key by key over the stored ones (the service). */
export const sequenceUpdateBody = zObject({
  name: zRequiredText(200).optional(),
  description: description.optional(),
  nodes: zArray(nodeSchema).max(MAX_NODES, `at most ${MAX_NODES} nodes`).optional(),
  edges: zArray(edgeSchema).max(MAX_EDGES, `at most ${MAX_EDGES} edges`).optional(),
  allowedEntityTypes: settingsShape.allowedEntityTypes.optional(),
  exitConditions: zJsonObject().optional(),
  sendSettings: zJsonObject().optional(),
  trackingSettings: zJsonObject().optional(),
  duplicateHandling: settingsShape.duplicateHandling.optional(),
  triggers: settingsShape.triggers.optional(),
  aiSettings: settingsShape.aiSettings.optional(),
  executionSettings: executionSettingsPatchSchema.optional(),
  defaultSenderType: settingsShape.defaultSenderType.optional(),
  defaultSenderId: settingsShape.defaultSenderId.optional(),
  defaultSmsNumber: settingsShape.defaultSmsNumber.optional(),
}) as unknown as z.ZodType<SequenceBody>;

export interface SequenceSettings {
  allowedEntityTypes: EnrollEntityType[];
  exitConditions: ExitConditions;
  sendSettings: SendSettings;
  trackingSettings: TrackingSettings;
  duplicateHandling: DuplicateHandling;
  triggers: SequenceTrigger[];
  aiSettings: Record<string, unknown>;
  executionSettings: typeof DEFAULT_EXECUTION_SETTINGS;
  defaultSenderType: 'fixed' | 'owner' | null;
  defaultSenderId: string | null;
  defaultSmsNumber: string | null;
}

export interface SequenceBody extends Partial<
  Omit<SequenceSettings, 'exitConditions' | 'sendSettings' | 'trackingSettings' | 'executionSettings'>
> {
  name?: string;
  description?: string | null;
  nodes?: SequenceNode[];
  edges?: SequenceEdge[];
  exitConditions?: Record<string, unknown>;
  sendSettings?: Record<string, unknown>;
  trackingSettings?: Record<string, unknown>;
  executionSettings?: Partial<typeof DEFAULT_EXECUTION_SETTINGS>;
}

/** Merges a patch (deep for objects one level down) over stored settings and validates the result. */
export function mergeSettings(
  current: SequenceSettings,
  patch: SequenceBody,
): { settings: SequenceSettings; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const sub = <T>(key: string, schema: z.ZodType<T>, base: unknown, p: unknown): T => {
    const merged = isPlainObject(p) ? { ...(base as object), ...p } : base;
    const res = schema.safeParse(merged);
    if (res.success) return res.data;
    for (const iss of res.error.issues)
      issues.push({ path: [key, ...iss.path.map(String)].join('.'), error: iss.message });
    return base as T;
  };
  const exitPatch = isPlainObject(patch.exitConditions) ? { ...patch.exitConditions } : undefined;
  // The nested exit objects merge too, so `{ onDealStageChange: { enabled: true } }` keeps the stage list.
  if (exitPatch)
    for (const k of ['onDealStageChange', 'onLeadStatusChange'] as const) {
      if (isPlainObject(exitPatch[k])) exitPatch[k] = { ...current.exitConditions[k], ...exitPatch[k] };
    }
  const settings: SequenceSettings = {
    allowedEntityTypes: patch.allowedEntityTypes ?? current.allowedEntityTypes,
    exitConditions: sub('exitConditions', exitConditionsSchema, current.exitConditions, exitPatch),
    sendSettings: sub('sendSettings', sendSettingsSchema, current.sendSettings, patch.sendSettings),
    trackingSettings: sub('trackingSettings', trackingSettingsSchema, current.trackingSettings, patch.trackingSettings),
    duplicateHandling: patch.duplicateHandling ?? current.duplicateHandling,
    triggers: patch.triggers ?? current.triggers,
    aiSettings: patch.aiSettings ?? current.aiSettings,
    executionSettings: sub(
      'executionSettings',
      executionSettingsSchema,
      current.executionSettings,
      patch.executionSettings,
    ),
    defaultSenderType: patch.defaultSenderType !== undefined ? patch.defaultSenderType : current.defaultSenderType,
    defaultSenderId: patch.defaultSenderId !== undefined ? patch.defaultSenderId : current.defaultSenderId,
    defaultSmsNumber: patch.defaultSmsNumber !== undefined ? patch.defaultSmsNumber : current.defaultSmsNumber,
  };
  return { settings, issues };
}

export const DEFAULT_START_NODE: SequenceNode = {
  id: 'start',
  type: 'start',
  position: { x: 100, y: 200 },
  data: { label: 'Start' },
};

/**
 * Meaning-level check of a sequence graph: exactly one start node, unique node ids, edges between
 * existing nodes, `true`/`false` handles out of condition nodes (one edge each) and at most one
 * plain edge out of other nodes, nothing into the start node, no cycles, every node's data valid.
 */
export function validateSequenceGraph(nodes: SequenceNode[], edges: SequenceEdge[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const starts = nodes.filter((n) => n.type === 'start');
  if (starts.length !== 1)
    issues.push({ path: 'nodes', error: `must contain exactly one start node (found ${starts.length})` });
  const byId = new Map<string, SequenceNode>();
  nodes.forEach((n, i) => {
    if (byId.has(n.id)) issues.push({ path: `nodes[${i}].id`, error: `duplicate node id "${n.id}"` });
    byId.set(n.id, n);
    issues.push(...nodeDataIssues(n.type as SequenceNodeType, n.data, `nodes[${i}].data`));
  });
  const out = new Map<string, string[]>();
  const edgeIds = new Set<string>();
  edges.forEach((e, i) => {
    if (edgeIds.has(e.id)) issues.push({ path: `edges[${i}].id`, error: `duplicate edge id "${e.id}"` });
    edgeIds.add(e.id);
    const src = byId.get(e.source);
    const dst = byId.get(e.target);
    if (!src) issues.push({ path: `edges[${i}].source`, error: `no node "${e.source}"` });
    if (!dst) issues.push({ path: `edges[${i}].target`, error: `no node "${e.target}"` });
    if (!src || !dst) return;
    if (dst.type === 'start')
      issues.push({ path: `edges[${i}].target`, error: 'the start node cannot have incoming edges' });
    if (src.type === 'stop')
      issues.push({
        path: `edges[${i}].source`,
        error: 'a stop node ends the sequence and cannot have outgoing edges',
      });
    const handle = e.sourceHandle ?? null;
    const branching = BRANCHING_NODE_TYPES.includes(src.type as SequenceNodeType);
    if (branching && handle !== 'true' && handle !== 'false')
      issues.push({
        path: `edges[${i}].sourceHandle`,
        error: `must be "true" or "false" (edge out of ${src.type} node "${src.id}")`,
      });
    if (!branching && handle !== null)
      issues.push({ path: `edges[${i}].sourceHandle`, error: `must be null (${src.type} nodes do not branch)` });
    const key = `${e.source}\u0000${branching ? handle : ''}`;
    if (out.has(key))
      issues.push({
        path: `edges[${i}]`,
        error: branching
          ? `node "${src.id}" already has a "${handle}" edge`
          : `node "${src.id}" already has an outgoing edge (sequences are linear; branch with a condition node)`,
      });
    out.set(key, [...(out.get(key) ?? []), e.target]);
  });
  if (issues.length) return issues;
  // Cycle check (a sequence runs forwards only).
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.source, [...(next.get(e.source) ?? []), e.target]);
  const state = new Map<string, 1 | 2>();
  const visit = (id: string): boolean => {
    if (state.get(id) === 2) return false;
    if (state.get(id) === 1) return true;
    state.set(id, 1);
    const cyclic = (next.get(id) ?? []).some(visit);
    state.set(id, 2);
    return cyclic;
  };
  if (nodes.some((n) => visit(n.id)))
    issues.push({ path: 'edges', error: 'the graph has a cycle; sequences run forwards only' });
  return issues;
}

/** What toggling on needs beyond a valid graph: a start node and at least one action node. */
export function activationIssues(nodes: SequenceNode[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!nodes.some((n) => n.type === 'start')) issues.push({ path: 'nodes', error: 'needs a start node' });
  if (!nodes.some((n) => ACTION_NODE_TYPES.includes(n.type as SequenceNodeType))) {
    issues.push({ path: 'nodes', error: `needs at least one action node (${ACTION_NODE_TYPES.join(', ')})` });
  }
  return issues;
}
