import { z } from 'zod';
import { FAILURE_BEHAVIORS, graphEdgeView } from '../automations/index.schemas';
import { dateTimeView, idView, openObjectView, recordViewFields } from '../../platform/shared/views';
import { DUPLICATE_MODES, ENTITY_TYPES, SEQUENCE_EVENTS } from './definition.schemas';
import { SEQUENCE_NODE_TYPES } from './nodes.schemas';
import { WAIT_REASONS } from './sequence.entity';

// Response views of sequences, their enrollments and stats (request bodies: definition.schemas.ts).

const ENROLLMENT_STATUS_VALUES = ['active', 'paused', 'completed', 'exited', 'switched'] as const;
const hhmm = z.string().describe('HH:mm');
const int = z.number().int();

export const sequenceNodeView = z.object({
  id: z.string(),
  type: z.enum(SEQUENCE_NODE_TYPES),
  position: z.object({ x: z.number(), y: z.number() }),
  data: openObjectView.describe('node settings (subject, body, templateId, delay, branch rules, …)'),
});

/** Sequence edges are automation graph edges. */
export const sequenceEdgeView = graphEdgeView;

const entityType = z.enum(ENTITY_TYPES);

export const sequenceTriggerView = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('field_change'),
    id: z.string().optional(),
    entityType,
    field: z.string(),
    operator: z.enum(['changed', 'equals', 'not_equals', 'contains']),
    value: z.unknown().optional(),
  }),
  z.object({
    type: z.literal('entity_created'),
    id: z.string().optional(),
    entityType,
    filters: openObjectView,
  }),
  z.object({
    type: z.literal('sequence_event'),
    id: z.string().optional(),
    sourceSequenceId: idView,
    event: z.enum(SEQUENCE_EVENTS),
  }),
]);

/** The settings of a sequence, defaults filled in (spread at the top level of the sequence view). */
export const sequenceSettingsFields = {
  allowedEntityTypes: z.array(entityType),
  exitConditions: z.object({
    onEmailReply: z.boolean(),
    onSmsReply: z.boolean(),
    onMeetingBooked: z.boolean(),
    onDealStageChange: z.object({ enabled: z.boolean(), stages: z.array(z.union([z.number(), z.string()])) }),
    onLeadStatusChange: z.object({ enabled: z.boolean(), statuses: z.array(z.string()) }),
  }),
  sendSettings: z.object({
    businessHoursOnly: z.boolean(),
    businessStart: hhmm,
    businessEnd: hhmm,
    timezone: z.string(),
    skipWeekends: z.boolean(),
    smsQuietHoursEnabled: z.boolean(),
    smsQuietHoursStart: hhmm,
    smsQuietHoursEnd: hhmm,
    emailIntervalSeconds: int.nullable(),
  }),
  trackingSettings: z.object({ trackOpens: z.boolean(), trackClicks: z.boolean() }),
  duplicateHandling: z.enum(DUPLICATE_MODES),
  triggers: z.array(sequenceTriggerView).describe('auto-enrollment triggers'),
  aiSettings: openObjectView,
  executionSettings: z.object({
    failureBehavior: z.enum(FAILURE_BEHAVIORS),
    retryMaxAttempts: int,
    retryIntervalMinutes: int,
  }),
  defaultSenderType: z.enum(['fixed', 'owner']).nullable(),
  defaultSenderId: z.string().nullable(),
  defaultSmsNumber: z.string().nullable(),
};

export const sequenceCountsView = z.object({
  totalEnrolled: int,
  active: int,
  paused: int,
  completed: int,
  exited: int,
  switched: int,
});

export const sequenceView = z.object({
  _id: idView,
  name: z.string(),
  description: z.string().nullable(),
  isActive: z.boolean(),
  nodes: z.array(sequenceNodeView),
  edges: z.array(sequenceEdgeView),
  ...sequenceSettingsFields,
  version: int.describe('grows on every graph or settings change'),
  stats: sequenceCountsView.describe('enrollments by status'),
  createdBy: idView.nullable(),
  createdAt: recordViewFields.createdAt,
  updatedAt: recordViewFields.updatedAt,
});
export type SequenceView = z.infer<typeof sequenceView>;

export const sequenceToggleView = z.object({ _id: idView, isActive: z.boolean() });
export const sequenceDeletedView = z.object({ deleted: z.literal(true) });

export const enrollmentView = z.object({
  _id: idView,
  sequenceId: idView,
  sequenceName: z.string(),
  entityType,
  entityId: idView,
  personId: idView.nullable().describe('the contact person behind the entity'),
  status: z.enum(ENROLLMENT_STATUS_VALUES),
  exitReason: z.string().nullable(),
  source: z.string().describe('how it was enrolled (manual, api, trigger, …)'),
  currentNodeId: z.string().nullable(),
  nextActionAt: dateTimeView.nullable(),
  waitReason: z
    .enum(WAIT_REASONS)
    .nullable()
    .describe(
      "why the run waits until nextActionAt: send_window (business hours, weekends, SMS quiet hours in the contact's zone), mailbox_cap (maxPerHour/maxPerDay of the sender mailbox), email_interval (emailIntervalSeconds), paused; null for a wait step or nothing to wait for",
    ),
  pausedUntil: dateTimeView.nullable(),
  sequenceVersion: int.nullable().describe('the sequence version the enrollment runs with'),
  workflowId: z.string(),
  enrolledAt: dateTimeView,
  finishedAt: dateTimeView.nullable(),
  error: z.string().nullable(),
  retryOf: idView
    .nullable()
    .describe('the failed enrollment this one retries (POST …/enrollments/:enrollmentId/retry)'),
  createdAt: recordViewFields.createdAt,
  updatedAt: recordViewFields.updatedAt,
});
export type EnrollmentView = z.infer<typeof enrollmentView>;

export const enrollmentStepView = z.object({
  nodeId: z.string(),
  nodeType: z.string(),
  status: z.enum(['running', 'waiting', 'completed', 'skipped', 'failed']),
  handle: z.string().nullable(),
  startedAt: dateTimeView,
  endedAt: dateTimeView.nullable(),
  output: openObjectView.nullable(),
  error: z.string().nullable(),
  sentAt: dateTimeView.nullable(),
  openedAt: dateTimeView.nullable(),
  clickedAt: dateTimeView.nullable(),
  repliedAt: dateTimeView.nullable(),
  waitReason: z.enum(WAIT_REASONS).nullable().describe('a waiting send step: why it has not gone out yet'),
  nextActionAt: dateTimeView.nullable().describe('a waiting step: when it goes on'),
});
export type EnrollmentStepView = z.infer<typeof enrollmentStepView>;

export const enrollmentWaitView = z
  .object({
    source: z
      .enum(['workflow', 'stored'])
      .describe(
        'workflow: answered by the running workflow (its wait query); stored: the workflow did not answer within the short deadline (no worker), so this is the stored row',
      ),
    waitingFor: z
      .enum([...WAIT_REASONS, 'wait_step'])
      .nullable()
      .describe('what the run waits for; null while it works on a step'),
    waitReason: z.enum(WAIT_REASONS).nullable(),
    nextActionAt: dateTimeView.nullable().describe('until when'),
    nodeId: z.string().nullable(),
  })
  .describe('a running enrollment: what it waits for and until when');
export type EnrollmentWaitView = z.infer<typeof enrollmentWaitView>;

export const enrollmentDetailView = enrollmentView.extend({
  retries: z.array(idView).describe('the enrollments that retry this one, oldest first'),
  steps: z.array(enrollmentStepView).describe('step history, oldest first'),
  wait: enrollmentWaitView.nullable().describe('null once the enrollment has ended'),
});
export type EnrollmentDetailView = z.infer<typeof enrollmentDetailView>;

export const sequenceStatsView = z.object({
  stats: sequenceCountsView.extend({
    exitReasons: z.record(z.string(), int).describe('exited enrollments by exitReason'),
    steps: z.array(
      z.object({
        nodeId: z.string(),
        nodeType: z.string(),
        label: z.string().nullable(),
        sent: int,
        opened: int,
        clicked: int,
        replied: int,
        completed: int,
        skipped: int,
        failed: int,
        waiting: int,
      }),
    ),
  }),
  enrollmentCounts: z
    .array(z.object({ _id: z.enum(ENROLLMENT_STATUS_VALUES), count: int }))
    .describe('[{ _id: status, count }] for the statuses that have enrollments'),
});
export type SequenceStatsView = z.infer<typeof sequenceStatsView>;

export const eligibilityView = z.object({
  eligible: z.boolean(),
  reason: z
    .enum([
      'sequence_inactive',
      'entity_type_not_allowed',
      'entity_not_found',
      'unsubscribed',
      'already_enrolled',
      'already_enrolled_will_restart',
      'already_enrolled_parallel_allowed',
    ])
    .optional(),
});
export type EligibilityView = z.infer<typeof eligibilityView>;

const enrollAction = z.enum(['enrolled', 'restarted']);

export const enrolledOneView = z.object({
  ok: z.literal(true),
  action: enrollAction.optional(),
  enrollmentId: idView.optional(),
});
export const enrolledManyView = z.object({
  enrolled: int,
  failed: int,
  results: z.array(
    z.object({
      entityId: z.string(),
      success: z.boolean(),
      enrollmentId: idView.optional(),
      action: enrollAction.optional(),
      error: z.string().optional(),
      code: z.string().optional().describe('entity_not_found, unsubscribed, already_enrolled'),
    }),
  ),
});

export const pausedView = z.object({ paused: z.literal(true) });
export const resumedView = z.object({ resumed: z.literal(true) });
export const unenrolledView = z.object({ unenrolled: z.literal(true) });
export const unsubscribedView = z.object({ unsubscribed: z.literal(true), exited: int });

export const retriedEnrollmentView = z.object({
  enrollmentId: idView.describe('the new enrollment'),
  workflowId: z.string(),
  status: z.literal('active'),
  retryOf: idView.describe('the failed enrollment it retries'),
  resumeAt: z.string().describe('the node the new enrollment begins at (the failed step)'),
  existing: z.boolean().describe('true when a repeated request (same Idempotency-Key) found the retry it recorded'),
});
