import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';
import type { SequenceEdge, SequenceNode, SequenceSettings } from './definition.schemas';

/** A sequence definition; `version` grows on every graph/settings change (enrollments keep their snapshot). */
export const Sequence = defineEntity({
  name: 'Sequence',
  tableName: 'sequence',
  indexes: workspaceIndexes('isActive'),
  properties: {
    ...tenantProps,
    name: p.string().length(200),
    description: p.text().nullable(),
    isActive: p.boolean().default(false),
    nodes: p.json<SequenceNode[]>(),
    edges: p.json<SequenceEdge[]>(),
    settings: p.json<SequenceSettings>(),
    version: p.integer().default(1),
    createdBy: p.string().length(24).nullable(),
  },
});
export type Sequence = InferEntity<typeof Sequence>;

export type EnrollmentStatus = 'active' | 'paused' | 'completed' | 'exited' | 'switched';
/** Why a running enrollment waits until its nextActionAt. */
export const WAIT_REASONS = ['send_window', 'mailbox_cap', 'email_interval', 'paused'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];
export const ENROLLMENT_STATUSES: readonly EnrollmentStatus[] = ['active', 'paused', 'completed', 'exited', 'switched'];

/** What a running enrollment works from: the normalised graph and settings at enrollment time. */
export interface EnrollmentSnapshot {
  version: number;
  nodes: { id: string; type: string; data: Record<string, unknown> }[];
  edges: { source: string; target: string; sourceHandle: string | null }[];
  settings: SequenceSettings;
  /** A retry (retry.ts): the failed node its walk begins at instead of the start node. */
  resumeAt?: string;
}

/** Records the enrollment is about, for exit matching and message links. */
export interface EnrollmentLinks {
  leadId?: string;
  personId?: string;
  companyId?: string;
  dealId?: string;
}

/**
 * One enrollment of one entity, mirrored from its workflow. `exclusive` rows (every mode but
 * allow_multiple) are unique per sequence + entity while active or paused: a partial unique
 * index makes concurrent enrolls race-free.
 */
export const SequenceEnrollment = defineEntity({
  name: 'SequenceEnrollment',
  tableName: 'sequence_enrollment',
  indexes: [
    { properties: ['workspaceId', 'sequenceId', 'status'] },
    { properties: ['workspaceId', 'entityId'] },
    { properties: ['workspaceId', 'personId'] },
    {
      name: 'sequence_enrollment_retry_of_index',
      expression: `create index "sequence_enrollment_retry_of_index" on "sequence_enrollment" ("retry_of") where "retry_of" is not null`,
    },
  ],
  uniques: [
    {
      name: 'sequence_enrollment_one_running',
      expression: `create unique index "sequence_enrollment_one_running" on "sequence_enrollment" ("sequence_id", "entity_type", "entity_id") where "exclusive" and "status" in ('active', 'paused')`,
    },
  ],
  properties: {
    ...tenantProps,
    sequenceId: p.string().length(24),
    sequenceName: p.string().length(200),
    entityType: p.string().length(20),
    entityId: p.string().length(24),
    /** The contact person behind the entity (a lead's or deal's person), for reply/booking exits. */
    personId: p.string().length(24).nullable(),
    links: p.json<EnrollmentLinks>(),
    exclusive: p.boolean().default(true),
    status: p.string().length(20).$type<EnrollmentStatus>().default('active'),
    exitReason: p.string().length(40).nullable(),
    source: p.string().length(40),
    currentNodeId: p.string().length(100).nullable(),
    nextActionAt: p.datetime().nullable(),
    pausedUntil: p.datetime().nullable(),
    /** Why the run waits until nextActionAt (send_window, mailbox_cap, email_interval, paused); null otherwise. */
    waitReason: p.string().length(20).$type<WaitReason>().nullable(),
    /** The API command (pause, resume, unenroll) that last changed the status: its retry gets the outcome. */
    lastCommandId: p.string().length(64).nullable(),
    snapshot: p.json<EnrollmentSnapshot>(),
    workflowId: p.string().length(200),
    enrolledAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
    error: p.text().nullable(),
    enrolledBy: p.string().length(24).nullable(),
    /** Random capability of the unsubscribe link in this enrollment's e-mails (like image tokens). */
    unsubscribeToken: p.string().length(64).unique(),
    /** Committed, its workflow not started yet: the starter (sequences/start-queue.ts) starts it. */
    startQueued: p.boolean().default(false),
    /** A starter's claim on a queued row; expired claims are taken over. */
    startLeaseUntil: p.datetime().nullable(),
    /** The API request (derived from its Idempotency-Key) that made the row: its retry answers this row. */
    requestKey: p.string().length(64).nullable(),
    /** The failed enrollment this one retries (retry.ts), from its failed step. */
    retryOf: p.string().length(24).nullable(),
  },
});
export type SequenceEnrollment = InferEntity<typeof SequenceEnrollment>;

export type SequenceStepStatus = 'running' | 'waiting' | 'completed' | 'skipped' | 'failed';

/** Step history: one row per node an enrollment reached (sequences never revisit a node). */
export const SequenceStep = defineEntity({
  name: 'SequenceStep',
  tableName: 'sequence_step',
  uniques: [{ properties: ['enrollmentId', 'nodeId'] }],
  indexes: workspaceIndexes(['sequenceId', 'nodeId'], 'enrollmentId'),
  properties: {
    ...tenantProps,
    enrollmentId: p.string().length(24),
    sequenceId: p.string().length(24),
    nodeId: p.string().length(100),
    nodeType: p.string().length(20),
    status: p.string().length(20).$type<SequenceStepStatus>(),
    startedAt: p.datetime(),
    endedAt: p.datetime().nullable(),
    output: p.json<Record<string, unknown>>().nullable(),
    error: p.text().nullable(),
    handle: p.string().length(10).nullable(),
    /** The outbound message of a send step: tracking and reply events find the step through it. */
    messageId: p.string().length(24).nullable(),
    sentAt: p.datetime().nullable(),
    openedAt: p.datetime().nullable(),
    clickedAt: p.datetime().nullable(),
    repliedAt: p.datetime().nullable(),
  },
});
export type SequenceStep = InferEntity<typeof SequenceStep>;

/** Contacts who unsubscribed through a sequence link: never enrolled or mailed by sequences again. */
export const SequenceOptOut = defineEntity({
  name: 'SequenceOptOut',
  tableName: 'sequence_opt_out',
  uniques: [{ properties: ['workspaceId', 'entityType', 'entityId'] }],
  properties: {
    ...tenantProps,
    entityType: p.string().length(20),
    entityId: p.string().length(24),
    enrollmentId: p.string().length(24).nullable(),
  },
});
export type SequenceOptOut = InferEntity<typeof SequenceOptOut>;
