import type { Ctx } from '../../platform/context';
import { DomainError } from '../../platform/errors';
import type { Logger } from '../../platform/logger';
import { emit } from '../../platform/outbox/emit';
import { findPage, type PageRequest } from '../../platform/shared/listing';
import { plainOf } from '../../platform/shared/views';
import { createRecord } from '../../platform/shared/records';
import { inTransaction } from '../../platform/shared/tx';
import { ImportRun, type Dedupe, type RowError } from './import-run.entity';
import type { Importer } from './importers';
import type { ImportReportView, ImportRunView } from './import.schemas';
import { MAX_IMPORT_ROWS, type ParsedRow } from './import.limits';

export { MAX_IMPORT_ROWS, type ParsedRow };

const STORED_ERRORS = 100;

/** The answer of an import (the view in import.schemas.ts). */
export type ImportReport = ImportReportView;

/** "companyId: no company with id x" → { path: 'companyId', error: 'no company …' }; details win when given. */
export function rowErrorsOf(err: unknown): RowError['errors'] {
  if (!(err instanceof DomainError))
    return [{ path: '', error: 'could not be saved (internal error; see the server log)' }];
  if (
    Array.isArray(err.details) &&
    err.details.every((d) => typeof d?.path === 'string' && typeof d?.error === 'string')
  ) {
    return err.details as RowError['errors'];
  }
  const match = /^([\w.[\]]+): ([\s\S]+)$/.exec(err.message);
  return [match ? { path: match[1]!, error: match[2]! } : { path: '', error: err.message }];
}

type Outcome = 'created' | 'updated' | 'skipped';

async function saveRow<Row>(ctx: Ctx, importer: Importer<Row>, row: Row, dedupe: Dedupe): Promise<Outcome> {
  // One transaction per row: a row that fails while saving leaves nothing of itself behind.
  return inTransaction(ctx, async () => {
    const existing = dedupe === 'none' ? null : await importer.findExisting(ctx, row);
    if (existing && dedupe === 'skip') return 'skipped';
    if (existing) {
      await importer.update(ctx, existing, row, false);
      return 'updated';
    }
    await importer.create(ctx, row, false);
    return 'created';
  });
}

/** Dry run: the same checks through the services' preview mode; duplicates within the batch count too. */
async function checkRow<Row>(
  ctx: Ctx,
  importer: Importer<Row>,
  row: Row,
  dedupe: Dedupe,
  seen: Set<string>,
): Promise<Outcome> {
  const keys = dedupe === 'none' ? [] : importer.batchKeys(row);
  const existing = dedupe === 'none' ? null : await importer.findExisting(ctx, row);
  const inBatch = keys.some((k) => seen.has(k));
  if ((existing || inBatch) && dedupe === 'skip') return 'skipped';
  if (existing) {
    await importer.update(ctx, existing, row, true);
    return 'updated';
  }
  await importer.create(ctx, row, true);
  for (const key of keys) seen.add(key);
  return inBatch ? 'updated' : 'created';
}

/**
 * Imports rows one by one: each is validated, then saved in its own transaction; invalid rows
 * and rows that fail while saving are reported by index and the others are kept (the batch is
 * not all-or-nothing). `dryRun` saves nothing and returns the same report.
 */
export async function runImport<Row>(
  ctx: Ctx,
  importer: Importer<Row>,
  rows: readonly unknown[],
  parse: (raw: unknown) => ParsedRow<Row>,
  opts: { dedupe: Dedupe; dryRun: boolean; log?: Logger },
): Promise<ImportReport> {
  const dedupe = importer.dedupeKey ? opts.dedupe : 'none';
  const report: ImportReport = {
    importId: null,
    entityType: importer.entityType,
    dryRun: opts.dryRun,
    dedupe,
    total: rows.length,
    created: 0,
    updated: 0,
    skipped: 0,
    failed: 0,
    errors: [],
  };
  const startedAt = new Date();
  if (!opts.dryRun) {
    const run = createRecord(ctx, ImportRun, {
      entityType: importer.entityType,
      dedupe,
      total: rows.length,
      userId: ctx.actor.userId,
      startedAt,
      finishedAt: null,
    });
    await ctx.em.flush();
    report.importId = run._id;
  }
  const seen = new Set<string>();
  for (const [index, raw] of rows.entries()) {
    const parsed = parse(raw);
    if (!parsed.ok) {
      report.failed++;
      report.errors.push({ row: index, errors: parsed.errors });
      continue;
    }
    try {
      const outcome = opts.dryRun
        ? await checkRow(ctx, importer, parsed.row, dedupe, seen)
        : await saveRow(ctx, importer, parsed.row, dedupe);
      report[outcome]++;
    } catch (err) {
      if (!(err instanceof DomainError))
        opts.log?.error({ err, row: index, entityType: importer.entityType }, 'import row failed');
      report.failed++;
      report.errors.push({ row: index, errors: rowErrorsOf(err) });
    } finally {
      // Keeps memory flat over thousands of rows and drops whatever a failed row left in the EM.
      ctx.em.clear();
    }
  }
  if (report.importId) await finishRun(ctx, report.importId, report);
  return report;
}

async function finishRun(ctx: Ctx, id: string, report: ImportReport): Promise<void> {
  const run = await ctx.em.findOneOrFail(ImportRun, { _id: id });
  const { created, updated, skipped, failed } = report;
  Object.assign(run, {
    created,
    updated,
    skipped,
    failed,
    errors: report.errors.slice(0, STORED_ERRORS),
    finishedAt: new Date(),
    updatedAt: new Date(),
  });
  emit(ctx, {
    type: 'import_completed',
    entityType: 'import',
    entityId: id,
    payload: { importId: id, entityType: report.entityType, total: report.total, created, updated, skipped, failed },
  });
  await ctx.em.flush();
}

const RUN_FIELDS = [
  '_id',
  'entityType',
  'dedupe',
  'total',
  'created',
  'updated',
  'skipped',
  'failed',
  'errors',
  'userId',
  'startedAt',
  'finishedAt',
] as const;

/** Import runs of the workspace, newest first. */
export async function listImportRuns(ctx: Ctx, page: PageRequest): Promise<{ items: ImportRunView[]; total: number }> {
  const { items, total } = await findPage(ctx.em, ImportRun, {}, page, { startedAt: 'desc' });
  return { items: items.map((r) => plainOf(r, RUN_FIELDS)), total };
}
