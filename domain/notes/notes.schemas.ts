import { z } from 'zod';
import { listQuery } from '../shared/list-query';
import { objectId } from '../shared/schemas';
import { customObjectSlug, refField } from '../shared/record-fields';

export const MAX_NOTE_CHARS = 50_000;

const content = z
  .string({ message: 'is required' })
  .refine((s) => s.trim().length > 0, 'is required')
  .refine((s) => s.length <= MAX_NOTE_CHARS, `must be at most ${MAX_NOTE_CHARS} characters`)
  .describe(`text or HTML, up to ${MAX_NOTE_CHARS} characters; stored as sent (clients sanitise HTML when rendering)`);

const refs = {
  company: refField.describe('company id'),
  personRef: refField.describe('person id'),
  leadRef: refField.describe('lead id'),
  dealRef: refField.describe('deal id'),
  customObjectRecord: refField.describe('custom object record id (needs customObjectSlug)'),
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
