import type { RouteFactory } from '../../platform/http/app-deps';
import * as objects from './custom-objects.service';
import * as objectFields from './custom-object-fields.service';
import * as records from './records.service';
import {
  bulkBody,
  createFieldBody,
  createObjectBody,
  fieldParams,
  listRecordsQuery,
  MAX_BULK_IDS,
  objectParams,
  recordBody,
  recordParams,
  updateFieldBody,
  updateObjectBody,
} from './custom-objects.schemas';
import {
  bulkUpdateResultView,
  customObjectDeletedView,
  customObjectDetailView,
  customObjectFieldView,
  customObjectImportReportView,
  customObjectRecordView,
  customObjectSearchView,
  customObjectView,
  recordExportPageView,
  recordListExtras,
  relatedRecordView,
} from './custom-objects.views';
import { activityView } from '../timeline';
import { envelopes } from '../../platform/http/crud';
import { pageParams } from '../../platform/shared/list-query';
import { acknowledged, created, ok, paged, pageOf, route } from '../../platform/http/registry';
import { z } from 'zod';
import { searchTextParams } from '../../platform/shared/search-text';
import { customObjectImportBody, MAX_IMPORT_ROWS, runImport } from '../imports';
import { customObjectImporter } from './importer';
import { customObjectExportBody, customObjectExportQuery, DEFAULT_EXPORT_ROWS, MAX_EXPORT_ROWS } from '../exports';
import { admin, read, write } from '../../platform/http/access';

const section = 'Custom objects';
const onObject = { slug: 'custom-object' };
const onField = { slug: 'custom-object', fieldSlug: 'custom-object-field' };
const onRecord = { slug: 'custom-object', id: 'custom-object-record' };
const pageQuery = z.object(pageParams(100));
const importAccess = { scopes: ['import'], roles: ['owner', 'admin'] } as const;
// Like the other exports (lists included): the export scope and the admin or owner role.
const exportAccess = { scopes: ['export'], roles: ['owner', 'admin'] } as const;

const RECORD_SHAPE =
  'Body: field slug → value at the top level, or wrapped in `{ data }` / `{ customFields }`; `avatar` (image rules) at the top level. Unknown or read-only slugs are 400 with `details[{ path, error }]`.';

export const customObjectsRoutes: RouteFactory = (deps) => {
  const images = deps.images;
  const base = '/api/v1/custom-objects';
  const search = deps.customObjectSearch;
  return [
    // Before `/:slug` (the slug `search` is reserved).
    route({
      method: 'GET',
      path: `${base}/search`,
      section,
      access: read,
      query: z.object(searchTextParams),
      response: envelopes.data(customObjectSearchView),
      summary:
        'Search the records of every custom object with `searchable: true` (q: 2-200 characters, limit: default 10, max 50).',
      description:
        "Response: `{ data: { query, hits: [{ _id, object, objectLabel, recordNumber, title, snippet }], total, degraded? } }`: one flat list ranked by relevance across objects (`object` is the slug, `objectLabel` its singular label). Matches each object's `searchableFields` (or its text-like fields when none are set), its title field and the record number; `piiFields` are never indexed nor matched. `snippet` is an HTML fragment with matches in `<mark>…</mark>`. Answers from Postgres with `degraded: true` when Meilisearch is unavailable or behind.",
      handler: async ({ ctx, query }) => ok(await search.search(ctx, { q: query.q, limit: query.limit })),
    }),
    route({
      method: 'GET',
      path: base,
      section,
      access: read,
      query: pageQuery,
      summary: 'Custom object definitions of the workspace (oldest first).',
      response: envelopes.list(customObjectView),
      handler: async ({ ctx, query }) => pageOf(await objects.listObjects(ctx, query), query),
    }),
    route({
      method: 'POST',
      path: base,
      section,
      access: admin,
      body: createObjectBody,
      successStatus: 201,
      response: envelopes.data(customObjectDetailView),
      summary:
        'Create a definition: slug (req; URL-safe, unique: 409), singular and plural (req), description, icon, color (hex; without useAccentNavIcon it turns accent icons on), useAccentNavIcon, searchable, showInSidebar.',
      handler: async ({ ctx, body }) => created(await objects.createObject(ctx, body)),
    }),
    route({
      method: 'POST',
      path: '/api/v1/import/custom-objects/:slug',
      section: 'Import and export',
      access: importAccess,
      params: objectParams,
      body: customObjectImportBody,
      resources: onObject,
      response: envelopes.data(customObjectImportReportView),
      summary: `Import records of a custom object: rows (1-${MAX_IMPORT_ROWS}) validated one by one like POST /custom-objects/:slug/records; valid rows saved, invalid ones reported; validate: true saves nothing.`,
      description:
        'Each row is saved in its own transaction through the same service as the create endpoint (record number, unique values, references, events); the batch is not all-or-nothing. No duplicate detection: every valid row is a new record (a value already taken in a unique field fails its row). Answer { data: { importId, entityType: "custom_object", dryRun, dedupe: "none", total, created, updated, skipped, failed, errors: [{ row, errors: [{ path, error }] }] } } (row: 0-based index). The run is listed in GET /import/history.',
      handler: async ({ ctx, params, body }) => {
        await objects.getObject(ctx, params.slug);
        return ok(
          await runImport(
            ctx,
            customObjectImporter(params.slug, images),
            body.rows,
            (raw) =>
              typeof raw === 'object' && raw !== null && !Array.isArray(raw)
                ? { ok: true, row: raw as Record<string, unknown> }
                : { ok: false, errors: [{ path: '', error: 'row must be an object' }] },
            { dedupe: 'none', dryRun: body.validate, log: deps.log },
          ),
        );
      },
    }),
    route({
      method: 'POST',
      path: '/api/v1/export/custom-objects/:slug',
      section: 'Import and export',
      access: exportAccess,
      params: objectParams,
      query: customObjectExportQuery,
      body: customObjectExportBody,
      resources: onObject,
      response: recordExportPageView,
      summary: `Export records of a custom object in creation order: limit (default ${DEFAULT_EXPORT_ROWS}, max ${MAX_EXPORT_ROWS}), page or cursor, from/to on createdAt (aliases dateFrom/dateTo); body or query string.`,
      description:
        'Rows are shaped like GET /custom-objects/:slug/records/:id (field slugs at the top level). Answer { data: [rows], total, limit, hasMore, nextCursor, page? }; nextCursor is the _id of the last row when hasMore.',
      handler: async ({ ctx, params, query, koa }) => {
        const fromQuery = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
        const body =
          koa.request.body && typeof koa.request.body === 'object' ? (koa.request.body as Record<string, unknown>) : {};
        const parsed = customObjectExportBody.parse({ ...fromQuery, ...body });
        const page = await records.exportRecordsOf(ctx, params.slug, {
          limit: parsed.limit,
          page: parsed.page,
          cursor: parsed.cursor,
          from: parsed.from ?? parsed.dateFrom,
          to: parsed.to ?? parsed.dateTo,
        });
        return { status: 200, body: page };
      },
    }),
    route({
      method: 'GET',
      path: `${base}/:slug`,
      section,
      access: read,
      params: objectParams,
      resources: onObject,
      summary: 'One definition with its field schemas (`fields`).',
      response: envelopes.data(customObjectDetailView),
      handler: async ({ ctx, params }) => ok(await objects.describeObject(ctx, params.slug)),
    }),
    route({
      method: 'PATCH',
      path: `${base}/:slug`,
      section,
      access: admin,
      params: objectParams,
      body: updateObjectBody,
      resources: onObject,
      response: envelopes.data(customObjectDetailView),
      summary:
        'Update a definition: singular, plural, description, icon, color, useAccentNavIcon, searchable, showInSidebar, titleField, favoriteFieldKeys (≤ 5), searchableFields, views, piiFields (field slugs must exist). The slug cannot change.',
      handler: async ({ ctx, params, body }) => ok(await objects.updateObject(ctx, params.slug, body)),
    }),
    route({
      method: 'DELETE',
      path: `${base}/:slug`,
      section,
      access: admin,
      params: objectParams,
      resources: onObject,
      summary: 'Delete a definition with its fields and all its records.',
      response: envelopes.data(customObjectDeletedView),
      handler: async ({ ctx, params }) => ok({ deleted: true, ...(await objects.deleteObject(ctx, params.slug)) }),
    }),
    route({
      method: 'POST',
      path: `${base}/:slug/fields`,
      section,
      access: admin,
      params: objectParams,
      body: createFieldBody,
      resources: onObject,
      successStatus: 201,
      response: envelopes.data(customObjectFieldView),
      summary:
        'Add a field: slug, label, type (req), isRequired, isUnique (enforced by the database), options (select types), referenceType custom|native with referenceObject / nativeEntity (record_reference), order.',
      description:
        'Types: text, number, currency, date, datetime, select, multi_select, checkbox, url, email, phone, file, record_reference, json, formula (`expression`: + - * / and parentheses over numbers and number/currency field slugs; computed by the server on every write, read-only, existing records recomputed when it is created or its expression changes; an empty input or a division by zero leaves it empty). rollup is refused with 400 until server-side computation lands.',
      handler: async ({ ctx, params, body }) => created(await objectFields.createField(ctx, params.slug, body)),
    }),
    route({
      method: 'PATCH',
      path: `${base}/:slug/fields/:fieldSlug`,
      section,
      access: admin,
      params: fieldParams,
      body: updateFieldBody,
      resources: onField,
      response: envelopes.data(customObjectFieldView),
      summary:
        'Update a field: label, isRequired, isUnique (409 when records already share a value), options, order, expression (formula fields: every record is recomputed). Type and slug cannot change.',
      handler: async ({ ctx, params, body }) =>
        ok(await objectFields.updateField(ctx, params.slug, params.fieldSlug, body)),
    }),
    route({
      method: 'DELETE',
      path: `${base}/:slug/fields/:fieldSlug`,
      section,
      access: admin,
      params: fieldParams,
      resources: onField,
      summary: 'Delete a field and its value on every record (409 while a formula field reads it).',
      response: envelopes.ok,
      handler: async ({ ctx, params }) => {
        await objectFields.deleteField(ctx, params.slug, params.fieldSlug);
        return acknowledged();
      },
    }),
    route({
      method: 'GET',
      path: `${base}/:slug/records`,
      section,
      access: read,
      params: objectParams,
      query: listRecordsQuery,
      resources: onObject,
      response: envelopes.list(customObjectRecordView).extend(recordListExtras),
      summary:
        'Records (newest first): `q` (alias `search`) over the searchable fields and the record number, `sort` (a field slug, recordNumber, createdAt, updatedAt) with `dir`, `cursor` (the last `_id` of the previous page, default order only); answers `nextCursor` too.',
      handler: async ({ ctx, params, query }) => {
        const { items, total, nextCursor } = await records.listRecords(ctx, params.slug, query);
        return paged(items, { page: query.cursor ? 1 : query.page, limit: query.limit, total, nextCursor });
      },
    }),
    route({
      method: 'POST',
      path: `${base}/:slug/records`,
      section,
      access: write,
      params: objectParams,
      body: recordBody,
      resources: onObject,
      successStatus: 201,
      response: envelopes.data(customObjectRecordView),
      errors: [502],
      summary: `Create a record; recordNumber counts up per object. ${RECORD_SHAPE}`,
      handler: async ({ ctx, params, body }) => created(await records.createRecordOf(ctx, params.slug, body, images)),
    }),
    route({
      method: 'POST',
      path: `${base}/:slug/records/bulk`,
      section,
      access: write,
      params: objectParams,
      body: bulkBody,
      resources: onObject,
      response: envelopes.data(bulkUpdateResultView),
      summary: `Apply one patch to up to ${MAX_BULK_IDS} records (ids, patch both required) in one transaction; answers { matched, updated, notFound }.`,
      handler: async ({ ctx, params, body }) =>
        ok(await records.bulkUpdate(ctx, params.slug, body.ids, body.patch, images)),
    }),
    route({
      method: 'GET',
      path: `${base}/:slug/records/:id`,
      section,
      access: read,
      params: recordParams,
      resources: onRecord,
      summary: 'One record with its field values at the top level.',
      response: envelopes.data(customObjectRecordView),
      handler: async ({ ctx, params }) => ok(await records.getRecord(ctx, params.slug, params.id)),
    }),
    ...(['PATCH', 'PUT'] as const).map((method) =>
      route({
        method,
        path: `${base}/:slug/records/:id`,
        section,
        access: write,
        params: recordParams,
        body: recordBody,
        resources: onRecord,
        response: envelopes.data(customObjectRecordView),
        errors: [502],
        summary: `Update a record (partial merge: only given slugs change; null clears). ${RECORD_SHAPE}`,
        handler: async ({ ctx, params, body }) =>
          ok(await records.updateRecordOf(ctx, params.slug, params.id, body, images)),
      }),
    ),
    route({
      method: 'DELETE',
      path: `${base}/:slug/records/:id`,
      section,
      access: write,
      params: recordParams,
      resources: onRecord,
      summary: 'Delete a record.',
      response: envelopes.ok,
      handler: async ({ ctx, params }) => {
        await records.deleteRecordOf(ctx, params.slug, params.id);
        return acknowledged();
      },
    }),
    route({
      method: 'GET',
      path: `${base}/:slug/records/:id/activity-feed`,
      section,
      access: read,
      params: recordParams,
      query: pageQuery,
      resources: onRecord,
      summary: "The record's history (created, field changes with from/to) and activities, newest first.",
      response: envelopes.list(activityView),
      handler: async ({ ctx, params, query }) =>
        pageOf(await records.recordFeed(ctx, params.slug, params.id, query), query),
    }),
    route({
      method: 'GET',
      path: `${base}/:slug/records/:id/related`,
      section,
      access: read,
      params: recordParams,
      resources: onRecord,
      summary:
        'Records linked through reference fields (up to 500): outgoing (its references to native or custom records) and incoming (records referencing it): [{ direction, field, entityType, object?, entityId, title }].',
      response: envelopes.list(relatedRecordView),
      handler: async ({ ctx, params }) => {
        const items = await records.relatedRecords(ctx, params.slug, params.id);
        return paged(items, { page: 1, limit: 500, total: items.length });
      },
    }),
  ];
};
