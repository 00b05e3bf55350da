import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { p, tenantProps, workspaceIndexes } from '../../platform/orm/base';

export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];
export const CALL_STATUSES = [
  'ringing',
  'in_progress',
  'answered',
  'completed',
  'missed',
  'busy',
  'failed',
  'no_answer',
  'voicemail',
  'cancelled',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const TRANSCRIPT_STATUSES = ['none', 'pending', 'processing', 'completed', 'failed'] as const;
export type TranscriptStatus = (typeof TRANSCRIPT_STATUSES)[number];

export interface ConversationTurn {
  speaker: string;
  text: string;
  startMs?: number | null;
  endMs?: number | null;
}

// recordingUrl is stored for logged-in sessions only; serializers never include it (spec: Call).
export const Call = defineEntity({
  name: 'Call',
  tableName: 'call',
  uniques: [{ properties: ['workspaceId', 'externalId'] }],
  indexes: workspaceIndexes('startedAt', 'updatedAt', 'personId', 'companyId', 'leadId', 'dealId'),
  properties: {
    ...tenantProps,
    subject: p.string().length(300).nullable(),
    phone: p.string().length(50),
    direction: p.string().length(10).$type<CallDirection>(),
    status: p.string().length(20).$type<CallStatus>(),
    duration: p.integer().default(0),
    startedAt: p.datetime(),
    notes: p.text().nullable(),
    outcome: p.string().length(200).nullable(),
    companyId: p.string().length(24).nullable(),
    personId: p.string().length(24).nullable(),
    leadId: p.string().length(24).nullable(),
    dealId: p.string().length(24).nullable(),
    ownerId: p.string().length(24).nullable(),
    externalId: p.string().length(200).nullable(),
    transcriptText: p.text().nullable(),
    transcriptSummary: p.text().nullable(),
    transcriptStatus: p.string().length(20).$type<TranscriptStatus>().default('none'),
    conversation: p.json<ConversationTurn[]>().default([]),
    languageCode: p.string().length(20).nullable(),
    recordingUrl: p.string().length(2048).nullable(),
    recordingPending: p.boolean().default(false),
    activityId: p.string().length(24).nullable(),
  },
});
export type Call = InferEntity<typeof Call>;
