import { z } from 'zod';
import { CALL_DIRECTIONS, CALL_STATUSES, TRANSCRIPT_STATUSES } from './call.entity';
import { listQuery } from '../../platform/shared/list-query';
import { clearableText, objectId, requiredText } from '../../platform/shared/schemas';
import { isoDate, refField, userId } from '../../platform/shared/record-fields';
import { dateTimeView, idView } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';

export const MAX_CONVERSATION_TURNS = 2000;
export const MAX_TURN_CHARS = 5000;
export const MAX_CALL_SECONDS = 7 * 24 * 3600;

export const direction = z.enum(CALL_DIRECTIONS, { message: `must be one of ${CALL_DIRECTIONS.join(', ')}` });
export const callStatus = z.enum(CALL_STATUSES, { message: `must be one of ${CALL_STATUSES.join(', ')}` });
export const duration = z
  .number({ message: 'must be a number of seconds' })
  .int('must be whole seconds')
  .min(0, 'must be at least 0')
  .max(MAX_CALL_SECONDS, `must be at most ${MAX_CALL_SECONDS}`);
export const externalId = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');
const ms = z.number().int('must be whole milliseconds').min(0, 'must be at least 0').nullable().optional();

const turn = z
  .object({
    speaker: requiredText(100),
    text: z.string().max(MAX_TURN_CHARS, `must be at most ${MAX_TURN_CHARS} characters`),
    startMs: ms,
    endMs: ms,
  })
  .refine((t) => t.startMs == null || t.endMs == null || t.endMs >= t.startMs, {
    message: 'endMs must not be before startMs',
    path: ['endMs'],
  });

const callFields = {
  subject: clearableText(300),
  direction,
  status: callStatus.describe(
    'default completed; completed and answered start the call_completed / call_answered automations',
  ),
  duration: duration.describe('seconds'),
  startedAt: isoDate.describe('default now'),
  notes: clearableText(50_000),
  outcome: clearableText(200),
  companyId: ref('company', refField),
  personId: ref('person', refField),
  leadId: ref('lead', refField),
  dealId: ref('deal', refField),
  ownerId: userId.describe('default: the API caller'),
  transcriptText: clearableText(500_000),
  transcriptSummary: clearableText(20_000),
  transcriptStatus: z.enum(TRANSCRIPT_STATUSES, { message: `must be one of ${TRANSCRIPT_STATUSES.join(', ')}` }),
  conversation: z.array(turn).max(MAX_CONVERSATION_TURNS, `at most ${MAX_CONVERSATION_TURNS} turns`),
  languageCode: clearableText(20).refine(
    (v) => v === null || /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v),
    'must be a language tag such as en or da-DK',
  ),
  recordingUrl: z
    .union([z.literal(''), z.null(), z.url({ protocol: /^https$/, message: 'must be an https URL' }).max(2048)])
    .transform((v) => v || null)
    .describe('stored, never returned to API keys (reads show hasRecording)'),
  recordingPending: z.boolean(),
};

export const createCallBody = z
  .object({
    phone: requiredText(50),
    externalId: externalId
      .optional()
      .describe('idempotency key: a repeated externalId answers the stored call with 200'),
  })
  .extend(z.object(callFields).partial().shape);
export const updateCallBody = z.object({ phone: requiredText(50), ...callFields }).partial();

export const listCallsQuery = listQuery({
  extra: {
    direction: direction.optional(),
    status: callStatus.optional(),
    companyId: objectId.optional(),
    personId: objectId.optional(),
    leadId: objectId.optional(),
    dealId: objectId.optional(),
    ownerId: objectId.optional(),
    q: z.string().trim().max(200).optional().describe('case-insensitive match on subject, phone, notes, outcome'),
  },
});

/** What the service writes: a parsed create or update body (every field optional; externalId only on create). */
export type CallInput = Partial<z.infer<typeof createCallBody>>;

const nullableId = idView.nullable();
const msView = z.number().int().nullable().optional();

/** One conversation turn as stored. */
export const conversationTurnView = z.object({
  speaker: z.string(),
  text: z.string(),
  startMs: msView.describe('offset from the call start, ms'),
  endMs: msView,
});

/** A call as the API shows it (spec: Call). The recording link is never shown (hasRecording). */
export const callView = z.object({
  _id: idView,
  subject: z.string().nullable(),
  phone: z.string(),
  status: z.enum(CALL_STATUSES),
  direction: z.enum(CALL_DIRECTIONS),
  duration: z.number().int().describe('seconds'),
  startedAt: dateTimeView,
  notes: z.string().nullable(),
  outcome: z.string().nullable(),
  companyId: nullableId,
  personId: nullableId,
  leadId: nullableId,
  dealId: nullableId,
  ownerId: nullableId.describe('user id'),
  externalId: z.string().nullable().describe('idempotency key of the logging system'),
  transcriptText: z.string().nullable(),
  transcriptSummary: z.string().nullable(),
  transcriptStatus: z.enum(TRANSCRIPT_STATUSES),
  hasTranscript: z.boolean().describe('transcript text or conversation turns exist'),
  conversation: z.array(conversationTurnView).describe('list reads: at most 50 turns'),
  conversationTruncated: z.boolean().describe('more turns are stored than shown (list reads)'),
  languageCode: z.string().nullable(),
  hasRecording: z.boolean().describe('a recording link is stored (the link itself is never shown to API keys)'),
  recordingPending: z.boolean().describe('a recording is expected but not stored yet'),
  activityId: nullableId.describe("the call's timeline activity id"),
  createdAt: dateTimeView,
  updatedAt: dateTimeView,
});
export type CallView = z.infer<typeof callView>;
