import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as notes from './notes.service';
import { createNoteBody, listNotesQuery, noteSummaryView, noteView, updateNoteBody } from './notes.schemas';
import { crudRoutes, envelopes, viewOf } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

export const notesRoutes: RouteFactory = () =>
  crudRoutes({
    base: '/api/v1/notes',
    section: 'Notes',
    kind: 'note',
    access: { read, write },
    schemas: { list: listNotesQuery, create: createNoteBody, update: updateNoteBody, view: noteView },
    service: {
      list: async (ctx, query) => {
        const { items, total } = await notes.listNotes(ctx, query);
        const data = items.map((n) => (query.view === 'summary' ? notes.summarizeNote(n) : notes.serializeNote(n)));
        return { items: data, total, extra: { view: query.view } };
      },
      create: notes.createNote,
      get: viewOf(notes.getNote, notes.serializeNote),
      update: notes.updateNote,
      remove: notes.deleteNote,
    },
    routes: {
      list: {
        response: envelopes
          .list(z.union([noteView, noteSummaryView]).describe('the note; view=summary: its summary with excerpt'))
          .extend({ view: z.enum(['summary', 'full']) }),
      },
    },
    summaries: {
      list: 'List notes (newest first; oldest change first with updatedSince); view=summary gives a plain-text excerpt instead of content. Unknown parameters are refused.',
      create:
        'Create a note on exactly one record (company, personRef, leadRef, dealRef or customObjectRecord); also creates its timeline activity (type note).',
      get: 'Get one note.',
      update: 'Update a note (content and/or its one reference); its activity follows.',
      remove: 'Delete a note and its activity.',
    },
  });
