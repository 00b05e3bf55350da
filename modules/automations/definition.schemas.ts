/**
 * The automation definition: vocabularies (trigger, action, lookup, operator lists) and the zod
 * schemas of nodes, edges, settings and the create/update bodies. Structure only: the meaning of
 * a graph (one trigger, handles, per-type config) is checked by `validateAutomationGraph`.
 */
import { z } from 'zod';
import type { EventName } from '../../platform/outbox/catalog';
import { WAIT_FORMS_DOC } from '../../platform/shared/wait-duration';
import { INSIGHT_TRIGGERS, NON_EVENT_TRIGGERS, UNEMITTED_TRIGGERS } from './trigger-sources';
import {
  zArray,
  zEnum,
  zInt,
  zNumber,
  zObject,
  zRequiredText,
  zStrictObject,
  zString,
  zJsonObject,
} from '../../platform/shared/zod-kit';

export { NON_EVENT_TRIGGERS, UNEMITTED_TRIGGERS };

/**
 * Every trigger of the spec's Events table: a declared event's name (catalog.ts), or one of the
 * two lists above (a misspelt name fails tsc).
 */
/** Still accepted; `record_created` / `record_changed` cover them (the spec says to prefer those). */
export const LEGACY_TRIGGERS = [
  'lead_created',
  'lead_updated',
  'company_updated',
  'person_updated',
  'deal_created',
  'deal_updated',
] as const satisfies readonly EventName[];

export const BOOKING_TRIGGERS = [
  'booking_created',
  'booking_cancelled',
  'booking_rescheduled',
  'booking_approved',
  'booking_rejected',
  // Issue 28: the approver's request and reminders of a pending booking.
  'booking_approval_requested',
  'booking_approval_reminder',
] as const satisfies readonly EventName[];

/** Sequence enrollment events (payload { enrollment }): the enrolled record's namespaces are loaded. */
export const SEQUENCE_TRIGGERS = [
  'sequence_enrolled',
  'sequence_completed',
  'sequence_exited',
  'sequence_paused',
  'sequence_resumed',
  'sequence_unenrolled',
] as const satisfies readonly EventName[];

/** A support ticket changed after it was created. */
export const TICKET_CHANGE_TRIGGERS = [
  'support_ticket_updated',
  'support_ticket_resolved',
  'support_ticket_closed',
  'support_ticket_reopened',
  'support_ticket_stage_changed',
  'support_ticket_assigned',
] as const satisfies readonly EventName[];

export const TRIGGER_TYPES = [
  ...LEGACY_TRIGGERS,
  'deal_won',
  'deal_lost',
  'deal_stage_changed',
  'call_completed',
  'call_answered',
  'email_received',
  'email_opened',
  'email_replied',
  'sms_received',
  'sms_replied',
  'event_created',
  'agent_field_change',
  'agent_new_company',
  'agent_any',
  'sales_analytics_done',
  'transcription_ready',
  'offer_created',
  'offer_sent',
  'offer_viewed',
  'offer_accepted',
  'offer_rejected',
  'offer_expired',
  'offer_pdf_downloaded',
  'contract_sent',
  'contract_completed',
  'contract_expired',
  'contract_voided',
  'contract_period_ending',
  'contract_viewed',
  'contract_signed',
  'contract_declined',
  // Issue 28: changes to a sent envelope.
  'contract_signer_corrected',
  'contract_invitation_resent',
  'contract_extended',
  ...BOOKING_TRIGGERS,
  ...INSIGHT_TRIGGERS,
  'support_ticket_created',
  ...TICKET_CHANGE_TRIGGERS,
  'tag_added',
  'tag_removed',
  'user_joined_workspace',
  'ads_lead_form_submitted',
  'custom_object_created',
  'custom_object_updated',
  'record_created',
  'record_changed',
  'scheduled',
  'webhook',
  ...SEQUENCE_TRIGGERS,
] as const satisfies readonly (EventName | (typeof NON_EVENT_TRIGGERS)[number] | (typeof UNEMITTED_TRIGGERS)[number])[];
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/**
 * Accounting actions: the spec withholds the six systems' names (they prefix its identifiers), so
 * one neutral identifier per operation takes a `system` config field naming the connected system.
 */
export const ACCOUNTING_ACTION_TYPES = [
  'accounting_create_customer',
  'accounting_update_customer',
  'accounting_create_case',
  'accounting_create_order_confirmation',
  'accounting_create_invoice',
  'accounting_book_invoice',
] as const;

/** Every action of the spec's action table. */
export const ACTION_TYPES = [
  'send_email',
  'send_sms',
  'create_task',
  'create_recall',
  'create_note',
  'create_activity',
  'update_record',
  'assign_user',
  'set_access',
  'move_deal_stage',
  'create_lead',
  'create_deal',
  'create_contact',
  'create_offer',
  'create_record',
  'add_to_sequence',
  'http_request',
  'send_webhook',
  'add_to_list',
  'remove_from_list',
  ...ACCOUNTING_ACTION_TYPES,
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** Still executed; saving them yields a warning that names the replacement. */
export const DEPRECATED_ACTIONS = [
  'create_lead',
  'create_deal',
  'create_contact',
  'create_offer',
  'assign_user',
] as const satisfies readonly ActionType[];

export const NODE_TYPES = ['trigger', 'action', 'condition', 'delay', 'ai', 'lookup'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const LOOKUP_ENTITY_TYPES = [
  'Lead',
  'Deal',
  'Company',
  'People',
  'Offer',
  'Activity',
  'Task',
  'Booking',
  'Event',
  'SupportTicket',
  'CustomObjectRecord',
] as const;
export type LookupEntityType = (typeof LOOKUP_ENTITY_TYPES)[number];
export const LOOKUP_MODES = ['first', 'count', 'all'] as const;

/** Operators that compare against no value. */
export const VALUELESS_OPERATORS = ['is_empty', 'is_not_empty', 'exists', 'not_exists', 'is_true', 'is_false'] as const;

export const CONDITION_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'matches_regex',
  'greater_than',
  'less_than',
  'greater_than_or_equal',
  'less_than_or_equal',
  'between',
  ...VALUELESS_OPERATORS,
  'array_contains',
  'array_length_equals',
  'array_length_greater',
  'date_before',
  'date_after',
  'date_equals',
  'date_within_days',
  'date_in_exactly_days',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];
export const CONDITION_DATA_TYPES = ['string', 'number', 'boolean', 'date', 'array'] as const;
export type ConditionDataType = (typeof CONDITION_DATA_TYPES)[number];
export const CONDITION_LOGIC = ['and', 'or'] as const;

/** record_created / record_changed `entityTypes` (event entity names, lower snake case). */
export const RECORD_ENTITY_TYPES = [
  'all',
  'lead',
  'company',
  'person',
  'deal',
  'offer',
  'event',
  'support_ticket',
  'booking',
  'custom_object',
] as const;
/** record_changed `changeTypes` (the spec leaves them open; these four are what the product emits). */
export const RECORD_CHANGE_TYPES = ['field_changed', 'stage_changed', 'tag_added', 'tag_removed'] as const;
export const TAG_TRIGGER_ENTITY_TYPES = ['all', 'Lead', 'People', 'Company'] as const;
export const WEBHOOK_ENTITY_TYPES = ['Lead', 'People', 'Company', 'Deal', 'none'] as const;
export const SCHEDULE_FREQUENCIES = ['interval', 'hourly', 'daily', 'weekly', 'monthly'] as const;
export const SCHEDULE_INTERVAL_MINUTES = [5, 10, 15, 30] as const;

export const EDGE_HANDLES = {
  condition: ['true', 'false'],
  ai: ['true', 'false'],
  lookup: ['found', 'empty', 'error'],
} as const;

export const MAX_NODES = 200;
export const MAX_EDGES = 400;

/**
 * Node ids appear in `{{lookup.<nodeId>.…}}` placeholders and step logs, so they may not contain
 * dots, braces, pipes or whitespace.
 */
export const NODE_ID_RE = /^[^\s.{}|]{1,100}$/;
const nodeId = zString().regex(NODE_ID_RE, 'must be 1-100 characters without spaces, dots, braces or |');
const nodeRef = zString().min(1, 'is required').max(100, 'must be at most 100 characters');

/** Extra canvas keys a graph editor sends (width, selected, dragging, …) are dropped. */
export const nodeSchema = zObject({
  id: nodeId,
  type: zEnum(NODE_TYPES),
  position: zObject({ x: zNumber(), y: zNumber() }),
  data: zJsonObject().describe(
    `node settings: triggers and actions under data.config, logic nodes on data. A delay node takes ${WAIT_FORMS_DOC} ` +
      '(e.g. { "delayAmount": 1, "delayUnit": "days" }), no default',
  ),
});
export type AutomationNode = z.infer<typeof nodeSchema>;

export const edgeSchema = zObject({
  id: zString().min(1, 'is required').max(200, 'must be at most 200 characters'),
  source: nodeRef,
  target: nodeRef,
  sourceHandle: zString().max(50, 'must be at most 50 characters').nullable().optional(),
  targetHandle: zString().max(50, 'must be at most 50 characters').nullable().optional(),
});
export type AutomationEdge = z.infer<typeof edgeSchema>;

export const FAILURE_BEHAVIORS = ['stop', 'continue', 'retry'] as const;
const executionSettingsShape = {
  failureBehavior: zEnum(FAILURE_BEHAVIORS),
  retryMaxAttempts: zInt().min(1).max(10),
  retryIntervalMinutes: zInt().min(1).max(1440),
};
/** Full settings with the spec's defaults (create, and what the engine reads). */
export const executionSettingsSchema = zStrictObject({
  failureBehavior: executionSettingsShape.failureBehavior.default('stop'),
  retryMaxAttempts: executionSettingsShape.retryMaxAttempts.default(3),
  retryIntervalMinutes: executionSettingsShape.retryIntervalMinutes.default(5),
});
export type ExecutionSettings = z.infer<typeof executionSettingsSchema>;
/** PUT: only the keys sent, merged over the stored settings by the service. */
export const executionSettingsPatchSchema = zStrictObject(executionSettingsShape).partial();

/** Postgres integer range; 0 means unlimited. */
const runCap = zInt().min(0).max(2_147_483_647);
export const rateLimitsSchema = zStrictObject({
  maxRunsPerHour: runCap.default(0),
  maxRunsPerDay: runCap.default(0),
  maxRunsPerWeek: runCap.default(0),
  maxTotalRuns: runCap.default(0),
});
export type RateLimits = z.infer<typeof rateLimitsSchema>;
export const rateLimitsPatchSchema = zStrictObject({
  maxRunsPerHour: runCap,
  maxRunsPerDay: runCap,
  maxRunsPerWeek: runCap,
  maxTotalRuns: runCap,
}).partial();

export const DEFAULT_EXECUTION_SETTINGS: ExecutionSettings = {
  failureBehavior: 'stop',
  retryMaxAttempts: 3,
  retryIntervalMinutes: 5,
};
export const DEFAULT_RATE_LIMITS: RateLimits = {
  maxRunsPerHour: 0,
  maxRunsPerDay: 0,
  maxRunsPerWeek: 0,
  maxTotalRuns: 0,
};

const description = zString()
  .trim()
  .max(2000, 'must be at most 2000 characters')
  .nullable()
  .transform((v) => (v === '' || v === null ? null : v));
const nodes = zArray(nodeSchema).max(MAX_NODES, `at most ${MAX_NODES} nodes`);
const edges = zArray(edgeSchema).max(MAX_EDGES, `at most ${MAX_EDGES} edges`);

/**
 * POST /automations. Unknown keys are dropped (house style; `isActive` is only set by toggle).
 * nodes/edges may be empty: a draft, which cannot be activated until its graph validates.
 */
export const automationCreateBody = zObject({
  name: zRequiredText(200),
  description: description.optional(),
  nodes: nodes.default([]),
  edges: edges.default([]),
  executionSettings: executionSettingsSchema.default(DEFAULT_EXECUTION_SETTINGS),
  rateLimits: rateLimitsSchema.default(DEFAULT_RATE_LIMITS),
});
export type AutomationCreateBody = z.infer<typeof automationCreateBody>;

/** PUT /automations/:id: every key optional; settings merge key by key over the stored ones. */
export const automationUpdateBody = zObject({
  name: zRequiredText(200).optional(),
  description: description.optional(),
  nodes: nodes.optional(),
  edges: edges.optional(),
  executionSettings: executionSettingsPatchSchema.optional(),
  rateLimits: rateLimitsPatchSchema.optional(),
});
export type AutomationUpdateBody = z.infer<typeof automationUpdateBody>;
