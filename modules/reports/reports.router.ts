import type { RouteFactory } from '../../platform/http/app-deps';
import * as reports from './reports.service';
import { historyReportQuery, pipelineReportQuery, reportRangeQuery, userReportParams } from './reports.schemas';
import { supportReport } from './support-report';
import { envelopes } from '../../platform/http/crud';
import { ok, route } from '../../platform/http/registry';
import {
  historyReportView,
  leadsReportView,
  offersReportView,
  organizationReportView,
  pipelineReportView,
  supportReportView,
  userReportView,
  usersReportView,
} from './reports.views';

const access = { scopes: ['read'] } as const;
const section = 'Reports';
const RANGE =
  'Optional `dateFrom`/`dateTo` (aliases startDate/from, endDate/to) bound `createdAt`; a bare date as upper bound is the whole day in the workspace time zone.';

export const reportsRoutes: RouteFactory = () => [
  route({
    method: 'GET',
    path: '/api/v1/reports/pipeline',
    section,
    access,
    query: pipelineReportQuery,
    summary:
      'Deals per pipeline stage: byStage [{ stageId, stageName, stageType, flowId, flowTitle, count, value, weightedValue }] and totals by status with the win rate.',
    description: `Weighted value = value × probability (the deal's, else the stage's, else 100 for won and 0 for lost stages). \`flowId\` limits it to one flow, \`ownerId\` to one owner. ${RANGE}`,
    response: envelopes.data(pipelineReportView),
    handler: async ({ ctx, query }) => ok(await reports.pipelineReport(ctx, query)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/reports/leads',
    section,
    access,
    query: reportRangeQuery,
    summary:
      'Leads: total, value, average score, score distribution, by status and source, converted (a deal refers to the lead) and conversion rate.',
    description: `\`ownerId\` limits it to one owner. ${RANGE}`,
    response: envelopes.data(leadsReportView),
    handler: async ({ ctx, query }) => ok(await reports.leadsReport(ctx, query)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/reports/organization',
    section,
    access,
    query: reportRangeQuery,
    summary:
      'Workspace totals: companies, people, leads, deals by status (count, value), activities, tasks open/done, notes, calls, events, users.',
    description: `With a range, only records created in it are counted. ${RANGE}`,
    response: envelopes.data(organizationReportView),
    handler: async ({ ctx, query }) => ok(await reports.organizationReport(ctx, query)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/reports/users',
    section,
    access,
    query: reportRangeQuery,
    summary:
      'One row per user: deals owned (open, won, lost, open and won value), leads, activities and tasks (open, done).',
    description: RANGE,
    response: envelopes.data(usersReportView),
    handler: async ({ ctx, query }) => ok(await reports.usersReport(ctx, query)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/reports/users/:userId',
    section,
    access,
    params: userReportParams,
    query: reportRangeQuery,
    resources: { userId: 'user' },
    summary: "One user's figures as in /reports/users plus activitiesByType and lastActivityAt.",
    description: RANGE,
    response: envelopes.data(userReportView),
    handler: async ({ ctx, params, query }) => ok(await reports.userReport(ctx, params.userId, query)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/reports/history',
    section,
    access,
    query: historyReportQuery,
    summary:
      'Records created per day: `stat` (deals, leads, activities, companies), `startDate` and `endDate` required (aliases dateFrom/from, dateTo/to), optional `userId` (owner).',
    description:
      'Days are calendar days in the workspace time zone; every day of the range is present (count 0 when none); at most 366 days. Response `{ stat, startDate, endDate, timezone, total, series: [{ date, count }] }`.',
    response: envelopes.data(historyReportView),
    handler: async ({ ctx, query }) => ok(await reports.historyReport(ctx, query)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/reports/offers',
    section,
    access,
    query: reportRangeQuery,
    summary:
      'Offers: total, totalValue, averageValue, byStatus [{ status, count, value }] (a sent offer past validUntil counts as expired), sent, accepted, declined, conversionRate (accepted / sent, percent), averageAcceptedValue, byCurrency.',
    description: `Values are offer totals incl. VAT in major units, summed exactly in minor units. \`ownerId\` limits it to one owner. ${RANGE}`,
    response: envelopes.data(offersReportView),
    handler: async ({ ctx, query }) => ok(await reports.offersReport(ctx, query)),
  }),
  route({
    method: 'GET',
    path: '/api/v1/reports/support',
    section,
    access,
    query: reportRangeQuery,
    summary:
      'Support tickets: total, open (open, pending, on_hold) and closed (resolved, closed); byStatus, byPriority and byCategory (count, open, closed); average first response and resolution time in minutes.',
    description: `First response = the first public agent reply; resolution = resolvedAt; both from creation, averaged over the tickets that have one (\`responded\`, \`resolved\`). \`ownerId\` limits it to one assignee. ${RANGE}`,
    response: envelopes.data(supportReportView),
    handler: async ({ ctx, query }) => ok(await supportReport(ctx, query)),
  }),
];
