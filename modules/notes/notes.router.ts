import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import * as notes from './notes.service';
import { acknowledged, created, ok, paged, route } from '../../platform/http/registry';
import { idParams } from '../../platform/shared/schemas';
import { createNoteBody, listNotesQuery, noteSummaryView, noteView, updateNoteBody } from './notes.schemas';
import { envelopes } from '../../platform/http/crud';
import { read, write } from '../../platform/http/access';

const section = 'Notes';
const resources = { id: 'note' };

export const notesRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/notes',
    section,
    access: read,
    query: listNotesQuery,
    summary:
      'List notes (newest first; oldest change first with updatedSince); view=summary gives a plain-text excerpt instead of content. Unknown parameters are refused.',
    response: envelopes
      .list(z.union([noteView, noteSummaryView]).describe('the note; view=summary: its summary with excerpt'))
      .extend({ view: z.enum(['summary', 'full']) }),
    handler: async ({ ctx, query }) => {
      const { items, total } = await notes.listNotes(ctx, query);
      const data = items.map((n) => (query.view === 'summary' ? notes.summarizeNote(n) : notes.serializeNote(n)));
      return paged(data, { page: query.page, limit: query.limit, total, view: query.view });
    },
  }),
  route({
    method: 'POST',
    path: '/api/v1/notes',
    section,
    access: write,
    body: createNoteBody,
    successStatus: 201,
    summary:
      'Create a note on exactly one record (company, personRef, leadRef, dealRef or customObjectRecord); also creates its timeline activity (type note).',
    response: envelopes.data(noteView),
    handler: async ({ ctx, body }) => created(await notes.createNote(ctx, body)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/notes/:id',
    section,
    access: read,
    params: idParams,
    resources,
    summary: 'Get one note.',
    response: envelopes.data(noteView),
    handler: async ({ ctx, params }) => ok(notes.serializeNote(await notes.getNote(ctx, params.id))),
  }),
  route({
    method: 'PUT',
    path: '/api/v1/notes/:id',
    section,
    access: write,
    params: idParams,
    body: updateNoteBody,
    resources,
    summary: 'Update a note (content and/or its one reference); its activity follows.',
    response: envelopes.data(noteView),
    handler: async ({ ctx, params, body }) => ok(await notes.updateNote(ctx, params.id, body)),
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/notes/:id',
    section,
    access: write,
    params: idParams,
    resources,
    summary: 'Delete a note and its activity.',
    response: envelopes.ok,
    handler: async ({ ctx, params }) => {
      await notes.deleteNote(ctx, params.id);
      return acknowledged();
    },
  }),
];
