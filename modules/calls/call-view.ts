import type { LinkedActivity } from '../timeline';
import type { Call } from './call.entity';
import type { CallView } from './calls.schemas';

/** List reads carry at most this many conversation turns (single reads carry all stored turns). */
export const LIST_CONVERSATION_TURNS = 50;

/**
 * The read shape (spec: Call). `recordingUrl` is never included: recording links are for logged-in
 * sessions, and this interface only has API keys; `hasRecording` says whether one exists.
 */
export function serializeCall(c: Call, opts: { maxTurns?: number } = {}): CallView {
  const turns = c.conversation ?? [];
  const shown = opts.maxTurns !== undefined ? turns.slice(0, opts.maxTurns) : turns;
  return {
    _id: c._id,
    subject: c.subject ?? null,
    phone: c.phone,
    status: c.status,
    direction: c.direction,
    duration: c.duration,
    startedAt: c.startedAt.toISOString(),
    notes: c.notes ?? null,
    outcome: c.outcome ?? null,
    companyId: c.companyId ?? null,
    personId: c.personId ?? null,
    leadId: c.leadId ?? null,
    dealId: c.dealId ?? null,
    ownerId: c.ownerId ?? null,
    externalId: c.externalId ?? null,
    transcriptText: c.transcriptText ?? null,
    transcriptSummary: c.transcriptSummary ?? null,
    transcriptStatus: c.transcriptStatus,
    hasTranscript: Boolean(c.transcriptText) || turns.length > 0,
    conversation: shown,
    conversationTruncated: shown.length < turns.length,
    languageCode: c.languageCode ?? null,
    hasRecording: Boolean(c.recordingUrl),
    recordingPending: Boolean(c.recordingPending) && !c.recordingUrl,
    activityId: c.activityId ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

const LINKS = [
  ['personId', 'person'],
  ['companyId', 'company'],
  ['leadId', 'lead'],
  ['dealId', 'deal'],
] as const;

/** The call's timeline row: linked to every record the call is linked to. */
export function callTimelineRow(c: Call): LinkedActivity {
  const primary = LINKS.find(([field]) => c[field]);
  const fallback = c.direction === 'inbound' ? `Inbound call from ${c.phone}` : `Outbound call to ${c.phone}`;
  return {
    type: 'call',
    summary: c.subject || fallback,
    description: c.notes ?? null,
    companyId: c.companyId,
    personId: c.personId,
    leadId: c.leadId,
    dealId: c.dealId,
    entityType: primary ? primary[1] : null,
    entityId: primary ? (c[primary[0]] as string) : null,
    date: c.startedAt,
    metadata: {
      callId: c._id,
      phone: c.phone,
      direction: c.direction,
      status: c.status,
      duration: c.duration,
      outcome: c.outcome ?? null,
    },
    ownerId: c.ownerId ?? null,
  };
}
