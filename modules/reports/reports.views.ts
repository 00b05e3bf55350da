import { z } from 'zod';
import { ROLES } from '../../platform/context';
import { STAGE_TYPES } from '../deals';
import { OFFER_STATUSES } from '../offers';
import { dateTimeView, dateView, idView } from '../../platform/shared/views';
import { HISTORY_STATS } from './reports.schemas';

// Views of the report answers (read-only aggregates; every figure is computed, none is stored).

const bound = z.string().describe('a YYYY-MM-DD day or an ISO 8601 date-time, as given');
/** `dateFrom` / `dateTo` of the request (null when not given). */
export const periodView = { dateFrom: bound.nullable(), dateTo: bound.nullable() };
const count = z.number().int().min(0);
const amount = z.number().describe('sum in major units');
const percent = z.number().describe('percent, 2 decimals');
const countValue = z.object({ count, value: amount });

export const pipelineReportView = z.object({
  flowId: idView.nullable(),
  ...periodView,
  timezone: z.string(),
  totals: z.object({
    count,
    value: amount,
    weightedValue: amount,
    open: countValue,
    won: countValue,
    lost: countValue,
    winRate: percent.nullable().describe('won / (won + lost), percent; null without closed deals'),
  }),
  byStage: z.array(
    z.object({
      stageId: idView,
      stageName: z.string(),
      stageType: z.enum(STAGE_TYPES as [string, ...string[]]),
      order: z.number(),
      probability: z.number().nullable(),
      flowId: idView,
      flowTitle: z.string(),
      count,
      value: amount,
      weightedValue: amount.describe('value × probability (deal, else stage, else 100 won / 0 lost)'),
    }),
  ),
});
export type PipelineReportView = z.infer<typeof pipelineReportView>;

export const leadsReportView = z.object({
  ...periodView,
  timezone: z.string(),
  total: count,
  value: amount,
  averageScore: z.number().nullable(),
  converted: count.describe('leads a deal refers to'),
  conversionRate: percent.nullable(),
  byStatus: z.array(z.object({ status: z.string(), count, value: amount })),
  bySource: z.array(z.object({ source: z.string().nullable(), count })),
  scoreDistribution: z.array(z.object({ range: z.enum(['0-24', '25-49', '50-74', '75-100']), count })),
});
export type LeadsReportView = z.infer<typeof leadsReportView>;

export const organizationReportView = z.object({
  ...periodView,
  timezone: z.string(),
  companies: count,
  people: count,
  leads: count,
  deals: z.object({ open: countValue, won: countValue, lost: countValue }),
  activities: count,
  tasks: z.object({ open: count, done: count }),
  notes: count,
  calls: count,
  events: count,
  users: count,
});
export type OrganizationReportView = z.infer<typeof organizationReportView>;

const userFigures = {
  userId: idView,
  name: z.string(),
  email: z.string(),
  role: z.enum(ROLES as [string, ...string[]]),
  deals: z.object({ open: count, won: count, lost: count, wonValue: amount, openValue: amount }),
  leads: count,
  activities: count,
  tasks: z.object({ open: count, done: count }),
};

export const usersReportView = z.object({
  ...periodView,
  users: z.array(z.object(userFigures)),
});
export type UsersReportView = z.infer<typeof usersReportView>;

export const userReportView = z.object({
  ...periodView,
  ...userFigures,
  activitiesByType: z.array(z.object({ type: z.string(), count })),
  lastActivityAt: dateTimeView.nullable(),
});
export type UserReportView = z.infer<typeof userReportView>;

export const historyReportView = z.object({
  stat: z.enum(HISTORY_STATS),
  startDate: dateView,
  endDate: dateView,
  userId: idView.nullable(),
  timezone: z.string(),
  total: count,
  series: z.array(z.object({ date: dateView, count })).describe('every day of the range, 0 when none'),
});
export type HistoryReportView = z.infer<typeof historyReportView>;

export const offersReportView = z.object({
  period: z.object(periodView),
  total: count,
  totalValue: amount,
  averageValue: amount,
  byStatus: z.array(
    z.object({
      status: z.enum(OFFER_STATUSES).describe('a sent offer past validUntil counts as expired'),
      count,
      value: amount,
    }),
  ),
  sent: count,
  sentValue: amount,
  accepted: count,
  acceptedValue: amount,
  averageAcceptedValue: amount,
  declined: count,
  conversionRate: percent.describe('accepted / sent, percent (0 when nothing was sent)'),
  byCurrency: z.array(z.object({ currency: z.string(), count, value: amount })),
});
export type OffersReportView = z.infer<typeof offersReportView>;

const openClosed = { count, open: count, closed: count };
const minutes = z.number().nullable().describe('minutes, 2 decimals; null when no ticket has one');

export const supportReportView = z.object({
  ...periodView,
  timezone: z.string(),
  total: count,
  open: count.describe('open, pending, on_hold'),
  closed: count.describe('resolved, closed'),
  byStatus: z.array(z.object({ status: z.string(), count })),
  byPriority: z.array(z.object({ priority: z.string(), ...openClosed })),
  byCategory: z.array(z.object({ category: z.string(), ...openClosed })),
  averageFirstResponseMinutes: minutes,
  averageResolutionMinutes: minutes,
  responded: count,
  resolved: count,
});
export type SupportReportView = z.infer<typeof supportReportView>;
