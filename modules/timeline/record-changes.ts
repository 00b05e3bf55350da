/**
 * The create and update tails of the tagged CRM records (companies, people, leads): beside the record's own event
 * and its tag events (emitTaggedCreate / emitTaggedUpdate), a system row on the record's feed ('record_created', or
 * 'record_updated' with the changes), all in the one flush.
 */
import type { Ctx } from '../../platform/context';
import {
  emitTaggedCreate,
  emitTaggedUpdate,
  type Changes,
  type EventType,
  type PayloadFor,
  type RecordEvent,
} from '../../platform/shared/changes';
import { recordSystemActivity, type TimelineLink } from './timeline.service';

interface TaggedRecord {
  _id: string;
  tags: readonly string[];
}

/** The feed row a change writes: where it shows and its summary line. */
export interface FeedEntry {
  link: TimelineLink;
  summary: string;
}

/** The created event, a tag_added per tag, the 'record_created' feed row; then the flush unless flush: false. */
export function emitRecordCreated<N extends EventType>(
  ctx: Ctx,
  record: TaggedRecord,
  event: RecordEvent<N, PayloadFor<N>>,
  feed: FeedEntry,
  opts: { flush?: boolean } = {},
): Promise<void> {
  return emitTaggedCreate(ctx, record, event, {
    ...opts,
    also: () => recordSystemActivity(ctx, feed.link, 'record_created', feed.summary),
  });
}

/**
 * The update tail after applyPatch (emitUpdate): when anything changed, the updated event, the tag events against
 * `beforeTags` and the 'record_updated' feed row with the changes; then the flush unless flush: false.
 */
export function emitRecordUpdated<N extends EventType>(
  ctx: Ctx,
  record: TaggedRecord & { updatedAt: Date },
  changes: Changes,
  beforeTags: readonly string[],
  event: RecordEvent<N, (changes: Changes) => PayloadFor<N>>,
  feed: FeedEntry,
  opts: { flush?: boolean } = {},
): Promise<boolean> {
  return emitTaggedUpdate(ctx, record, changes, beforeTags, event, {
    ...opts,
    also: () => recordSystemActivity(ctx, feed.link, 'record_updated', feed.summary, { changes }),
  });
}
