import type { Readable } from 'node:stream';
import { z } from 'zod';
import type { RouteFactory } from '../../platform/http/app-deps';
import { exportPaths, MAX_EXPORT_ROWS } from './export-specs';
import { exportRecords } from './export.service';
import { getList } from '../lists';
import { RECORD_TYPES, type RecordType } from '../../platform/shared/record-kinds';
import { route, type Reply } from '../../platform/http/registry';
import { exportPageView, exportParamsOf, exportRowViews, exportQuery, listExportParams } from './export.schemas';

// Spec: export needs the export scope (read does not cover it) and the admin or owner role; POST only.
const access = { scopes: ['export'], roles: ['owner', 'admin'] } as const;
const section = 'Import and export';
const ANSWER = '{ data: [rows], total, limit, hasMore, nextCursor, page | skip }';

type RawQuery = Record<string, string | undefined>;

/** Scalar parameters may come from the query string too; the body wins. */
function params(type: RecordType, query: RawQuery, body: unknown) {
  const fromQuery = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
  return exportParamsOf()[type].parse({ ...fromQuery, ...(body && typeof body === 'object' ? body : {}) });
}

// The page arrives as a stream of JSON text (export.service.ts): sent as is, while it is read.
const reply = (page: Readable): Reply => ({
  status: 200,
  body: page,
  headers: { 'Content-Type': 'application/json; charset=utf-8' },
});

export const exportRoutes: RouteFactory = () => [
  ...RECORD_TYPES.map((type) =>
    route({
      method: 'POST',
      path: `/api/v1/export/${exportPaths()[type]}`,
      section,
      access,
      query: exportQuery,
      body: exportParamsOf()[type],
      summary: `Export ${exportPaths()[type]}: up to ${MAX_EXPORT_ROWS} rows per request with offset (page/skip) or keyset (cursor) paging, sort, fields, createdAt range and filters.`,
      description: `Rows carry the same field names as GET /api/v1/${exportPaths()[type]}/:id (dates as ISO strings). Default order _id ascending (creation order). Answer ${ANSWER}; nextCursor is the _id of the last row when hasMore.`,
      response: exportPageView(exportRowViews()[type]),
      handler: async ({ ctx, query, koa }) =>
        reply(await exportRecords(ctx, type, params(type, query as RawQuery, koa.request.body))),
    }),
  ),
  route({
    method: 'POST',
    path: '/api/v1/export/lists/:listId',
    section,
    access,
    params: listExportParams,
    query: exportQuery,
    body: z.record(z.string(), z.unknown(), { message: 'must be an object' }),
    resources: { listId: 'list' },
    summary:
      'Export the records of a list (its entity type decides the fields, sorts and filters); same parameters and answer as the typed exports.',
    description: `Answer ${ANSWER}. Unknown list: 404.`,
    response: exportPageView(
      z.union(RECORD_TYPES.map((t) => exportRowViews()[t])).describe("a row of the list's entity type"),
    ),
    handler: async ({ ctx, params: p, query, koa }) => {
      const list = await getList(ctx, p.listId);
      return reply(
        await exportRecords(ctx, list.entityType, params(list.entityType, query as RawQuery, koa.request.body), {
          listId: list._id,
        }),
      );
    },
  }),
];
