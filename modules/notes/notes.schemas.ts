import { z } from 'zod';
import { listQuery } from '../../platform/shared/list-query';
import { objectId } from '../../platform/shared/schemas';
import { customObjectSlug, refField } from '../../platform/shared/record-fields';
import { idView, recordViewFields } from '../../platform/shared/views';
import { ref } from '../../platform/references/refs';

export const MAX_NOTE_CHARS = 50_000;

const content = z
  .string({ message: 'is required' })
  .refine((s) => s.trim().length > 0, 'is required')
  .refine((s) => s.length <= MAX_NOTE_CHARS, `must be at most ${MAX_NOTE_CHARS} characters`)
  .describe(`text or HTML, up to ${MAX_NOTE_CHARS} characters; stored as sent (clients sanitise HTML when rendering)`);

const refs = {
  company: ref('company', refField).describe('company id'),
  personRef: ref('person', refField).describe('person id'),
  leadRef: ref('lead', refField).describe('lead id'),
  dealRef: ref('deal', refField).describe('deal id'),
  customObjectRecord: ref('custom-object-record', refField).describe(
    'custom object record id (needs customObjectSlug)',
  ),
  customObjectSlug,
};

/** Exactly one reference is checked by the domain (zero or two → 400). */
export const createNoteBody = z.object({ content }).extend(z.object(refs).partial().shape);
/** PUT changes content and/or moves the note to one other reference. */
export const updateNoteBody = createNoteBody.partial();

export const listNotesQuery = listQuery({
  strict: true,
  extra: {
    q: z.string().trim().max(200).optional().describe('case-insensitive match on content'),
    personRef: objectId.optional(),
    company: objectId.optional(),
    leadRef: objectId.optional(),
    dealRef: objectId.optional(),
  },
});

/** What the service writes: the parsed updateNoteBody (create bodies add their required fields). */
export type NoteInput = z.infer<typeof updateNoteBody>;

const nullableId = idView.nullable();

/** A note as the API shows it (spec: Note); exactly one of the reference fields is set. */
export const noteView = z.object({
  ...recordViewFields,
  content: z.string().describe('text or HTML as stored'),
  company: nullableId.describe('company id'),
  personRef: nullableId.describe('person id'),
  leadRef: nullableId.describe('lead id'),
  dealRef: nullableId.describe('deal id'),
  customObjectRecord: nullableId.describe('custom object record id'),
  customObjectSlug: z.string().nullable(),
  ownerId: nullableId.describe('user id of the author'),
  activityId: nullableId.describe("the note's timeline activity id"),
});
export type NoteView = z.infer<typeof noteView>;

/** `view=summary` rows of the note list: a plain-text excerpt instead of content. */
export const noteSummaryView = noteView
  .pick({
    _id: true,
    company: true,
    personRef: true,
    leadRef: true,
    dealRef: true,
    customObjectRecord: true,
    ownerId: true,
    createdAt: true,
    updatedAt: true,
  })
  .extend({ excerpt: z.string().describe('plain text of the content, at most 200 characters') });
export type NoteSummaryView = z.infer<typeof noteSummaryView>;
