import type { Ctx } from '../../platform/context';
import { emit } from '../../platform/outbox/emit';
import {
  createLinkedActivity,
  removeLinkedActivities,
  syncLinkedActivity,
  type LinkedActivity,
  NOTE_PARENT_FIELDS,
  parentEntityType,
  resolveParentRef,
  linkColumns,
} from '../timeline';
import { applyPatch } from '../../platform/shared/changes';
import { deleteWithDetach, findSyncPage, getRecord } from '../../platform/shared/record-service';
import { dateWhere, likePattern, type DateFilterInput, type PageRequest } from '../../platform/shared/listing';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { Note } from './note.entity';
import type { NoteInput, NoteSummaryView, NoteView } from './notes.schemas';
import { plainOf } from '../../platform/shared/views';

export const NOTE_FIELDS = [
  '_id',
  'content',
  'company',
  'personRef',
  'leadRef',
  'dealRef',
  'customObjectRecord',
  'customObjectSlug',
  'ownerId',
  'activityId',
  'createdAt',
  'updatedAt',
] as const;
const NOTE_SUMMARY_FIELDS = [
  'company',
  'personRef',
  'leadRef',
  'dealRef',
  'customObjectRecord',
  'ownerId',
  'createdAt',
  'updatedAt',
] as const;

type RefField = keyof typeof NOTE_PARENT_FIELDS;
const REF_FIELDS = Object.keys(NOTE_PARENT_FIELDS) as RefField[];

/** Plain-text excerpt of HTML content, for the timeline summary and `view=summary`. */
export function excerpt(content: string, max = 200): string {
  const text = content
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export const serializeNote = (n: Note): NoteView => plainOf(n, NOTE_FIELDS);

export const summarizeNote = (n: Note): NoteSummaryView => ({
  _id: n._id,
  excerpt: excerpt(n.content),
  ...plainOf(n, NOTE_SUMMARY_FIELDS),
});

export function getNote(ctx: Ctx, id: string): Promise<Note> {
  return getRecord(ctx, Note, id, 'note');
}

const resolveRef = async (ctx: Ctx, current: Note | null, input: NoteInput) =>
  (await resolveParentRef(ctx, NOTE_PARENT_FIELDS, current, input)).values;

function timelineRow(note: Note): LinkedActivity {
  const field = REF_FIELDS.find((f) => note[f])!;
  const id = note[field] as string;
  return {
    type: 'note',
    summary: excerpt(note.content) || 'Note',
    description: note.content,
    ...linkColumns(NOTE_PARENT_FIELDS[field], id),
    entityType: parentEntityType(NOTE_PARENT_FIELDS[field]),
    entityId: id,
    date: note.createdAt,
    metadata: { noteId: note._id },
    ownerId: note.ownerId ?? null,
  };
}

/** The note and its timeline row are written together. */
export async function createNote(ctx: Ctx, input: NoteInput & { content: string }): Promise<NoteView> {
  const refs = await resolveRef(ctx, null, input);
  return inTransaction(ctx, async () => {
    const note = createRecord(ctx, Note, {
      content: input.content,
      ...refs,
      ownerId: ctx.actor.userId,
      activityId: null,
    });
    note.activityId = createLinkedActivity(ctx, { noteRef: note._id }, timelineRow(note))._id;
    emit(ctx, { type: 'note_created', entityType: 'note', entityId: note._id, payload: { note: serializeNote(note) } });
    return serializeNote(note);
  });
}

/** Content or reference changes are mirrored to the linked activity in the same transaction. */
export async function updateNote(ctx: Ctx, id: string, input: NoteInput): Promise<NoteView> {
  const note = await getNote(ctx, id);
  const touchesRef = REF_FIELDS.some((f) => input[f] !== undefined) || input.customObjectSlug !== undefined;
  const refs = touchesRef ? await resolveRef(ctx, note, input) : {};
  const changes = applyPatch(note, {
    ...(input.content !== undefined ? { content: input.content } : {}),
    ...refs,
  } as Partial<Note>);
  if (!Object.keys(changes).length) return serializeNote(note);
  return inTransaction(ctx, async () => {
    note.updatedAt = new Date();
    note.activityId = await syncLinkedActivity(ctx, note.activityId ?? null, { noteRef: note._id }, timelineRow(note));
    emit(ctx, {
      type: 'note_updated',
      entityType: 'note',
      entityId: note._id,
      payload: { note: serializeNote(note), changes },
    });
    return serializeNote(note);
  });
}

export async function deleteNote(ctx: Ctx, id: string): Promise<void> {
  const note = await getNote(ctx, id);
  await deleteWithDetach(
    ctx,
    note,
    { type: 'note_deleted', entityType: 'note', payload: { note: serializeNote(note) } },
    () => removeLinkedActivities(ctx, { noteRef: id }),
  );
}

export interface NoteListQuery extends PageRequest, DateFilterInput {
  q?: string;
  company?: string;
  personRef?: string;
  leadRef?: string;
  dealRef?: string;
}

export async function listNotes(ctx: Ctx, query: NoteListQuery) {
  const where: Record<string, unknown> = { ...dateWhere(query) };
  for (const key of ['company', 'personRef', 'leadRef', 'dealRef'] as const) if (query[key]) where[key] = query[key];
  if (query.q) where.content = { $ilike: likePattern(query.q) };
  return findSyncPage(ctx, Note, where, query);
}
