import { z } from 'zod';
import { dateTimeView, idView } from '../shared/views';
import { CALL_DIRECTIONS, CALL_STATUSES, TRANSCRIPT_STATUSES } from '../calls/call.entity';

/** Response views of the crm-connect routes (phone/e-mail lookup, connector calls). */

export const lookupMatchView = z.object({
  entityType: z.enum(['person', 'company', 'lead']),
  _id: idView,
  name: z.string(),
  matchedOn: z.enum(['phone', 'email']),
  value: z.string().describe('the stored phone number or e-mail address that matched'),
});

export const lookupResultView = z.object({
  matches: z.array(lookupMatchView).describe('people, then companies, then leads; at most 25 of each'),
});
export type LookupResultView = z.infer<typeof lookupResultView>;

/**
 * A call as `serializeCall` (domain/calls/call-view.ts) shows it (spec: Call); the calls feature owns the serializer,
 * so this view must follow it.
 */
export const connectorCallView = z.object({
  _id: idView,
  subject: z.string().nullable(),
  phone: z.string(),
  status: z.enum(CALL_STATUSES),
  direction: z.enum(CALL_DIRECTIONS),
  duration: z.number().int().describe('seconds'),
  startedAt: dateTimeView,
  notes: z.string().nullable(),
  outcome: z.string().nullable(),
  companyId: idView.nullable(),
  personId: idView.nullable(),
  leadId: idView.nullable(),
  dealId: idView.nullable(),
  ownerId: idView.nullable(),
  externalId: z.string().nullable(),
  transcriptText: z.string().nullable(),
  transcriptSummary: z.string().nullable(),
  transcriptStatus: z.enum(TRANSCRIPT_STATUSES),
  hasTranscript: z.boolean(),
  conversation: z.array(
    z.object({
      speaker: z.string(),
      text: z.string(),
      startMs: z.number().nullable().optional(),
      endMs: z.number().nullable().optional(),
    }),
  ),
  conversationTruncated: z.boolean(),
  languageCode: z.string().nullable(),
  hasRecording: z.boolean(),
  recordingPending: z.boolean(),
  activityId: idView.nullable(),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
});
