import type { RouteFactory } from '../../platform/http/app-deps';
import { IMPORT_ENTITY_TYPES, type ImportEntityType } from './import-run.entity';
import { listImportRuns, runImport } from './import.service';
import { companyImporter, dealImporter, leadImporter, personImporter, type Importer } from './importers';
import { ok, paged, route } from '../../platform/http/registry';
import { pageQuery } from '../../platform/shared/schemas';
import { IMPORT_PATHS, importBody, importReportView, importRunView, rowParser, validateBody } from './import.schemas';
import { envelopes } from '../../platform/http/crud';

// Spec: import needs the import scope (write does not cover it) and the admin or owner role.
const access = { scopes: ['import'], roles: ['owner', 'admin'] } as const;
const section = 'Import and export';
const REPORT =
  '{ data: { importId, entityType, dryRun, dedupe, total, created, updated, skipped, failed, errors: [{ row, errors: [{ path, error }] }] } }';

export const importRoutes: RouteFactory = (deps) => {
  const images = deps.images;
  const importers: Record<ImportEntityType, Importer<unknown>> = {
    company: companyImporter(images),
    person: personImporter(images),
    lead: leadImporter,
    deal: dealImporter,
  };
  return [
    ...IMPORT_ENTITY_TYPES.map((entityType) =>
      route({
        method: 'POST',
        path: `/api/v1/import/${IMPORT_PATHS[entityType]}`,
        section,
        access,
        body: importBody,
        summary: `Import ${IMPORT_PATHS[entityType]}: rows (1-5000) validated one by one with the create schema; valid rows saved, invalid ones reported.`,
        description: `Each row is saved in its own transaction through the same service as POST /api/v1/${IMPORT_PATHS[entityType]} (events, feed, validation); the batch is not all-or-nothing. Duplicates: ${importers[entityType].dedupeKey ?? 'none (every row is created)'}. row in errors is the 0-based index in rows. Answer ${REPORT}.`,
        response: envelopes.data(importReportView),
        handler: async ({ ctx, body }) =>
          ok(
            await runImport(ctx, importers[entityType], body.rows, rowParser(entityType), {
              dedupe: body.options.dedupe,
              dryRun: false,
              log: deps.log,
            }),
          ),
      }),
    ),
    route({
      method: 'POST',
      path: '/api/v1/import/validate',
      section,
      access,
      body: validateBody,
      summary: 'Dry run of an import ({ entityType, rows, options }): the same report, nothing saved.',
      description: `Runs every check of the real import (schema, references, custom fields, duplicates, also within the batch) without writing. importId is null. Answer ${REPORT}.`,
      response: envelopes.data(importReportView),
      handler: async ({ ctx, body }) =>
        ok(
          await runImport(ctx, importers[body.entityType], body.rows, rowParser(body.entityType), {
            dedupe: body.options.dedupe,
            dryRun: true,
            log: deps.log,
          }),
        ),
    }),
    route({
      method: 'GET',
      path: '/api/v1/import/history',
      section,
      access,
      query: pageQuery(),
      summary:
        'Import runs, newest first: entityType, counts, the first 100 row errors, userId, startedAt, finishedAt (null while running or when cut short).',
      response: envelopes.list(importRunView),
      handler: async ({ ctx, query }) => {
        const { items, total } = await listImportRuns(ctx, query);
        return paged(items, { ...query, total });
      },
    }),
  ];
};
