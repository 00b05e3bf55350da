import type { Ctx } from '../../platform/context';
import { type Activity, serializeActivity } from '../timeline';
import type { FullRow } from '../../platform/orm/lean';
import { outboxRow } from '../../platform/outbox/emit';
import type { OutboundChannel, OutboundMessage } from './outbound-message.entity';
import type { MailboxCaps } from './send-quota';

// The rows of an outbound claim (shared by the single claim and bulk e-mail): the outbound row, its timeline
// row and the activity_created event, as plain rows for insertRowsSql.

export type MessageSource = 'automation' | 'sequence' | 'api' | 'support';
export const MESSAGE_SOURCES: readonly MessageSource[] = ['automation', 'sequence', 'api', 'support'];

export interface MessageLinks {
  personId?: string;
  companyId?: string;
  leadId?: string;
  dealId?: string;
}

export interface OutboundDraft {
  channel: OutboundChannel;
  idempotencyKey: string | null;
  source: MessageSource;
  recipients: string[];
  links: MessageLinks;
  activity: { summary: string; description: string | null; metadata: Record<string, unknown> };
  /** Rows that belong to the claim (e.g. the e-mail record), written in the claim's statement. */
  onClaim?: (claim: { outboundId: string; activityId: string; at: Date }) => ClaimRow[];
  /** The sending mailbox's caps (send-quota.ts): a fresh claim takes one unit in its transaction. */
  quota?: MailboxCaps;
}

function mainRecord(links: MessageLinks): { entityType: string | null; entityId: string | null } {
  if (links.leadId) return { entityType: 'lead', entityId: links.leadId };
  if (links.dealId) return { entityType: 'deal', entityId: links.dealId };
  if (links.personId) return { entityType: 'person', entityId: links.personId };
  if (links.companyId) return { entityType: 'company', entityId: links.companyId };
  return { entityType: null, entityId: null };
}

/** A row written together with a claim (e.g. the `email` row), as entity property names. */
export interface ClaimRow {
  table: string;
  row: Record<string, unknown>;
}

/** The outbound row of a fresh claim (`queued`), as a plain row for insertRowsSql. */
export function outboundClaimRow(
  ctx: Ctx,
  draft: Pick<OutboundDraft, 'channel' | 'idempotencyKey' | 'source' | 'recipients'>,
  claim: { outboundId: string; activityId: string; at: Date },
): FullRow<OutboundMessage> {
  const { outboundId: id, activityId, at } = claim;
  return {
    _id: id,
    workspaceId: ctx.actor.workspaceId,
    channel: draft.channel,
    idempotencyKey: draft.idempotencyKey,
    status: 'queued',
    source: draft.source,
    recipients: draft.recipients,
    activityId,
    providerMessageId: null,
    result: null,
    error: null,
    attempts: 1,
    claimedAt: at,
    sentAt: null,
    createdAt: at,
    updatedAt: at,
  } satisfies FullRow<OutboundMessage>;
}

/** The timeline row of a claim (metadata `status: queued` plus the draft's), as a plain row for insertRowsSql. */
export function claimActivityRow(
  ctx: Ctx,
  draft: Pick<OutboundDraft, 'channel' | 'links' | 'activity'>,
  claim: { outboundId: string; activityId: string; at: Date },
): FullRow<Activity> {
  const { outboundId: id, activityId, at } = claim;
  return {
    _id: activityId,
    workspaceId: ctx.actor.workspaceId,
    createdAt: at,
    updatedAt: at,
    type: draft.channel,
    system: false,
    summary: draft.activity.summary,
    description: draft.activity.description,
    companyId: draft.links.companyId ?? null,
    personId: draft.links.personId ?? null,
    dealId: draft.links.dealId ?? null,
    leadId: draft.links.leadId ?? null,
    ...mainRecord(draft.links),
    noteRef: null,
    callRef: null,
    taskRef: null,
    date: at,
    metadata: { ...draft.activity.metadata, outboundMessageId: id, status: 'queued' },
    userId: ctx.actor.userId,
    ownerId: ctx.actor.userId,
  } satisfies FullRow<Activity>;
}

/** The `activity_created` event of a timeline row written as `activity`. */
export const activityCreatedRow = (ctx: Ctx, at: Date, activity: FullRow<Activity>): Record<string, unknown> =>
  outboxRow(ctx, at, 'activity_created', 'activity', activity._id as string, {
    activity: serializeActivity(activity as unknown as Activity),
  });

/**
 * The rows of one fresh claim as plain rows for insertRowsSql: the outbound row (`queued`), its
 * timeline row and the `activity_created` event. The single claim below writes exactly these; bulk
 * e-mail (email/bulk-send.ts) writes the same rows, the timeline row with the outcome.
 */
export function claimRows(
  ctx: Ctx,
  draft: Omit<OutboundDraft, 'onClaim'>,
  claim: { outboundId: string; activityId: string; at: Date },
): { outbound: FullRow<OutboundMessage>; activity: FullRow<Activity>; event: Record<string, unknown> } {
  const activity = claimActivityRow(ctx, draft, claim);
  return {
    outbound: outboundClaimRow(ctx, draft, claim),
    activity,
    event: activityCreatedRow(ctx, claim.at, activity),
  };
}
