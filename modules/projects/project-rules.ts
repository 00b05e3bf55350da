import { validation } from '../../platform/errors';
import { htmlToText } from '../../platform/shared/html-text';
import { stageById, type KanbanStage } from '../../platform/shared/stages';
import type { ClipCardStatus, CommentVisibility } from './project.entity';

/** The project stage flow (spec: fields of the project flow are not shown): one fixed flow per workspace. */
export const PROJECT_STAGES: readonly KanbanStage[] = [
  { id: 1, title: 'Planning', order: 1 },
  { id: 2, title: 'In progress', order: 2 },
  { id: 3, title: 'Review', order: 3 },
  { id: 4, title: 'Completed', order: 4 },
];
export const FIRST_PROJECT_STAGE = 1;

export function assertProjectStage(field: string, stageId: number): void {
  stageById(PROJECT_STAGES, 'project', field, stageId);
}

export const MAX_COMMENT_CHARS = 5000;

/**
 * Comment content with HTML stripped, at most 5,000 characters after stripping (spec: Limits).
 * An empty result (only markup) is refused like a missing content.
 */
export function commentText(content: string): string {
  const text = htmlToText(content);
  if (!text)
    throw validation('content: is required (no text left after removing HTML)', [
      { path: 'content', error: 'is required' },
    ]);
  if (text.length > MAX_COMMENT_CHARS) {
    throw validation(`content: must be at most ${MAX_COMMENT_CHARS} characters after removing HTML`, [
      { path: 'content', error: `must be at most ${MAX_COMMENT_CHARS} characters` },
    ]);
  }
  return text;
}

/**
 * `internal` and `visibility` describe one fact: internal true ⇔ visibility internal. Either one
 * alone decides; both must agree (400 otherwise); neither keeps `current` (default customer).
 */
export function commentVisibility(
  input: { internal?: boolean; visibility?: CommentVisibility },
  current: { internal: boolean; visibility: CommentVisibility } = { internal: false, visibility: 'customer' },
): { internal: boolean; visibility: CommentVisibility } {
  const { internal, visibility } = input;
  if (internal !== undefined && visibility !== undefined && internal !== (visibility === 'internal')) {
    throw validation(`internal: ${internal} contradicts visibility ${visibility}`, [
      { path: 'visibility', error: 'contradicts internal' },
    ]);
  }
  if (visibility !== undefined) return { visibility, internal: visibility === 'internal' };
  if (internal !== undefined) return { internal, visibility: internal ? 'internal' : 'customer' };
  return current;
}

export const countWords = (text: string | null | undefined): number =>
  (text ?? '').trim().split(/\s+/).filter(Boolean).length;

/** A project's minimum word count makes the time-entry description required and that long. */
export function assertTimeEntryWords(minWords: number | null, description: string | null | undefined): void {
  if (!minWords) return;
  const words = countWords(description);
  if (words < minWords) {
    const error =
      words === 0
        ? `is required (this project needs at least ${minWords} words)`
        : `must have at least ${minWords} words (has ${words})`;
    throw validation(`description: ${error}`, [{ path: 'description', error }]);
  }
}

/** hours plus minutes/60, rounded to the minute's precision of 1/10,000 h; must be > 0. */
export function entryHours(hours: number, minutes: number | undefined): number {
  const total = Math.round((hours + (minutes ?? 0) / 60) * 10_000) / 10_000;
  if (!(total > 0))
    throw validation('hours: must be greater than 0', [{ path: 'hours', error: 'must be greater than 0' }]);
  return total;
}

export interface ClipCardState {
  totalHours: number;
  usedHours: number;
  allowOverdraft: boolean;
  expiresAt?: Date | null;
  cancelledAt?: Date | null;
}

/** cancelled (set by PUT) > expired (expiresAt passed) > depleted (used ≥ total without overdraft) > active. */
export function clipCardStatus(card: ClipCardState, now: Date = new Date()): ClipCardStatus {
  if (card.cancelledAt) return 'cancelled';
  if (card.expiresAt && card.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (!card.allowOverdraft && card.usedHours >= card.totalHours) return 'depleted';
  return 'active';
}

/** Hours left; with overdraft it goes negative (hours owed at the overdraft rate). */
export function clipCardRemaining(card: ClipCardState): number {
  const left = Math.round((card.totalHours - card.usedHours) * 10_000) / 10_000;
  return card.allowOverdraft ? left : Math.max(0, left);
}
