import { z } from 'zod';
import { isId } from '../../platform/ids';
import { ref } from '../../platform/references/refs';

// Query schemas of /reports/*. A bare date (YYYY-MM-DD) as an upper bound means that whole day.

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?$/;

/** A report bound as sent: a calendar day (in the workspace's time zone) or an exact instant. */
export type Bound = { day: string } | { at: Date };

const boundParam = z
  .string()
  .refine((s) => (DAY.test(s) || DATETIME.test(s)) && !Number.isNaN(Date.parse(s)), {
    message: 'must be an ISO 8601 date or datetime',
  })
  .transform((s): Bound => (DAY.test(s) ? { day: s } : { at: new Date(s) }));

const hexId = z.string().refine(isId, { message: 'must be a 24-character hex id' });
const userId = ref('user', hexId);

/** dateFrom (aliases startDate, from) and dateTo (aliases endDate, to) on createdAt; all optional. */
const rangeShape = {
  dateFrom: boundParam.optional(),
  startDate: boundParam.optional().describe('alias of dateFrom'),
  from: boundParam.optional().describe('alias of dateFrom'),
  dateTo: boundParam.optional(),
  endDate: boundParam.optional().describe('alias of dateTo'),
  to: boundParam.optional().describe('alias of dateTo'),
};

function mergeRange<T extends Record<string, unknown>>(
  q: T,
): Omit<T, 'startDate' | 'from' | 'endDate' | 'to'> & { dateFrom?: Bound; dateTo?: Bound } {
  const { startDate, from, endDate, to, ...rest } = q as Record<string, unknown>;
  return {
    ...rest,
    dateFrom: (q.dateFrom ?? startDate ?? from) as Bound | undefined,
    dateTo: (q.dateTo ?? endDate ?? to) as Bound | undefined,
  } as never;
}

export const reportRangeQuery = z.object({ ...rangeShape, ownerId: userId.optional() }).transform(mergeRange);
export type ReportRangeQuery = z.infer<typeof reportRangeQuery>;

export const pipelineReportQuery = z
  .object({
    ...rangeShape,
    ownerId: userId.optional(),
    flowId: ref('flow', hexId).optional(),
  })
  .transform(mergeRange);
export type PipelineReportQuery = z.infer<typeof pipelineReportQuery>;

export const HISTORY_STATS = ['deals', 'leads', 'activities', 'companies'] as const;
export type HistoryStat = (typeof HISTORY_STATS)[number];

export const historyReportQuery = z
  .object({
    stat: z.enum(HISTORY_STATS, { message: `stat must be one of ${HISTORY_STATS.join(', ')}` }),
    ...rangeShape,
    userId: userId.optional(),
  })
  .transform(mergeRange)
  .superRefine((q, ctx) => {
    if (!q.dateFrom)
      ctx.addIssue({ code: 'custom', path: ['startDate'], message: 'startDate (or dateFrom/from) is required' });
    if (!q.dateTo) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'endDate (or dateTo/to) is required' });
  })
  .transform((q) => q as typeof q & { dateFrom: Bound; dateTo: Bound });
export type HistoryReportQuery = z.infer<typeof historyReportQuery>;

export const userReportParams = z.object({ userId: hexId });
