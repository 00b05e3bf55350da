// The single-scan report and metric aggregates and the trigram-prefiltered record search give the
// same answers as the straightforward queries they replaced (kept here as the reference).
import type { Tenant, TestApp } from '../../../test/support/app';
import { withTestApp } from '../../../test/support/suites';
import type { TestUser } from '../../../test/support/users';
import { createFlow, makeSeller, type CreatedFlow } from './support';

let app: TestApp;
let t: Tenant;
let seller: TestUser;
const flows: CreatedFlow[] = [];

type Row = Record<string, unknown>;
const sql = (query: string, params: unknown[] = []): Promise<Row[]> =>
  app.runtime.deps.orm.em.fork().execute(query, params, 'all');
const round2 = (v: number): number => Math.round(v * 100) / 100;

withTestApp((s) => ({ app, t } = s));
beforeAll(async () => {
  seller = await makeSeller(app, t);
  for (const [title, stages] of [
    [
      'Sales',
      [
        { title: 'New', probability: 10 },
        { title: 'Talk' },
        { title: 'Offer', probability: 75 },
        { title: 'Won', type: 'won' },
        { title: 'Lost', type: 'lost' },
      ],
    ],
    [
      'Renewals',
      [
        { title: 'Due', probability: 30 },
        { title: 'Signed', type: 'won', probability: 90 },
        { title: 'Gone', type: 'lost' },
      ],
    ],
  ] as const)
    flows.push(await createFlow(t.http, title, stages));
  const [sales, renewals] = flows as [(typeof flows)[0], (typeof flows)[0]];
  const deals: [typeof sales, string, Record<string, unknown>][] = [
    [sales, 'New', { value: 1000 }],
    [sales, 'New', { value: 333.33, probability: 40 }],
    [sales, 'New', {}],
    [sales, 'Talk', { value: 1234.56 }],
    [sales, 'Talk', { value: 99.99, probability: 15, ownerId: seller.userId }],
    [sales, 'Offer', { value: 2000.4, ownerId: seller.userId }],
    [sales, 'Offer', { value: 10, probability: 0 }],
    [sales, 'Won', { value: 3000, ownerId: seller.userId }],
    [sales, 'Won', { value: 0.02, probability: 50 }],
    [sales, 'Lost', { value: 700 }],
    [renewals, 'Due', { value: 450.4 }],
    [renewals, 'Signed', { value: 800, ownerId: seller.userId }],
    [renewals, 'Signed', { value: 120, probability: 100 }],
    [renewals, 'Gone', { value: 60.6 }],
  ];
  for (const [i, [flow, stage, extra]] of deals.entries()) {
    const res = await t.http.post('/api/v1/deals', {
      title: `Deal ${i}`,
      flowId: flow.id,
      stageId: flow.stages[stage],
      ...extra,
    });
    expect(res.status).toBe(201);
    // Spread creation over the last 40 days (and one a year ago) for the date-range variants.
    await sql(`update deal set created_at = now() - ? * interval '1 day' where id = ?`, [
      i === 13 ? 370 : i * 3,
      res.body.data._id,
    ]);
  }
});

/**
 * The pipeline report as two statements (stages joined with deals; deals by status), as it was before the single scan.
 */
async function referencePipeline(filter: { flowId?: string; ownerId?: string; from?: string }) {
  const dealParams: unknown[] = [];
  let dealFilter = '';
  if (filter.from) {
    dealFilter += ` and d.created_at >= (?::date)::timestamp at time zone 'Europe/Copenhagen'`;
    dealParams.push(filter.from);
  }
  if (filter.ownerId) {
    dealFilter += ' and d.owner_id = ?';
    dealParams.push(filter.ownerId);
  }
  const byStage = await sql(
    `select s.id as stage_id, count(d.id)::int as count, coalesce(sum(d.value), 0)::float8 as value,
            coalesce(sum(coalesce(d.value, 0) * coalesce(d.probability, s.probability, case s.type when 'won' then 100 when 'lost' then 0 end, 0) / 100.0), 0)::float8 as weighted
       from flow_stage s join flow f on f.id = s.flow_id and f.workspace_id = s.workspace_id
       left join deal d on d.workspace_id = s.workspace_id and d.stage_id = s.id${dealFilter}
      where s.workspace_id = ?${filter.flowId ? ' and f.id = ?' : ''}
      group by s.id, f.id order by f.created_at, f.id, s."order", s.id`,
    [...dealParams, t.workspaceId, ...(filter.flowId ? [filter.flowId] : [])],
  );
  const byStatus = await sql(
    `select d.status, count(*)::int as count, coalesce(sum(d.value), 0)::float8 as value from deal d
      where d.workspace_id = ?${dealFilter}${filter.flowId ? ' and d.flow_id = ?' : ''} group by d.status`,
    [t.workspaceId, ...dealParams, ...(filter.flowId ? [filter.flowId] : [])],
  );
  const status = (s: string) => {
    const r = byStatus.find((x) => x.status === s);
    return { count: Number(r?.count ?? 0), value: round2(Number(r?.value ?? 0)) };
  };
  return {
    byStage: byStage.map((r) => ({
      stageId: r.stage_id,
      count: Number(r.count),
      value: round2(Number(r.value)),
      weightedValue: round2(Number(r.weighted)),
    })),
    open: status('open'),
    won: status('won'),
    lost: status('lost'),
  };
}

describe('GET /api/v1/reports/pipeline (one scan of the deals)', () => {
  it('gives the same figures as the two-statement reference, for every flow, owner and date filter', async () => {
    const since = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
    const variants: { flowId?: string; ownerId?: string; from?: string }[] = [
      {},
      { flowId: flows[0]!.id },
      { flowId: flows[1]!.id },
      { ownerId: seller.userId },
      { from: since },
      { flowId: flows[0]!.id, ownerId: seller.userId, from: since },
    ];
    for (const v of variants) {
      const query = new URLSearchParams({
        ...(v.flowId ? { flowId: v.flowId } : {}),
        ...(v.ownerId ? { ownerId: v.ownerId } : {}),
        ...(v.from ? { dateFrom: v.from } : {}),
      });
      const res = await t.http.get(`/api/v1/reports/pipeline?${query}`);
      expect(res.status).toBe(200);
      const ref = await referencePipeline(v);
      expect(
        res.body.data.byStage.map((s: any) => ({
          stageId: s.stageId,
          count: s.count,
          value: s.value,
          weightedValue: s.weightedValue,
        })),
      ).toEqual(ref.byStage);
      expect(res.body.data.totals).toMatchObject({
        open: ref.open,
        won: ref.won,
        lost: ref.lost,
        count: ref.open.count + ref.won.count + ref.lost.count,
      });
    }
  });

  it('matches hand-computed figures for the renewals flow', async () => {
    const res = await t.http.get(`/api/v1/reports/pipeline?flowId=${flows[1]!.id}`);
    const byName = Object.fromEntries(res.body.data.byStage.map((s: any) => [s.stageName, s]));
    // Due: 450.4 × 30 %; Signed: 800 × 90 % (stage) + 120 × 100 % (own); Gone: lost, 0.
    expect(byName.Due).toMatchObject({ count: 1, value: 450.4, weightedValue: 135.12 });
    expect(byName.Signed).toMatchObject({ count: 2, value: 920, weightedValue: 840 });
    expect(byName.Gone).toMatchObject({ count: 1, value: 60.6, weightedValue: 0 });
    expect(res.body.data.totals).toMatchObject({ count: 4, value: 1431, weightedValue: 975.12, winRate: 66.67 });
  });
});

describe('GET /api/v1/metrics/query (one grouped statement)', () => {
  it('total, series and breakdown agree with per-group counts, including deals without an owner', async () => {
    const unowned = await t.http.post('/api/v1/deals', {
      title: 'Nobody',
      flowId: flows[0]!.id,
      stageId: flows[0]!.stages.New,
      value: 5,
    });
    await sql('update deal set owner_id = null where id = ?', [unowned.body.data._id]);
    const from = new Date(Date.now() - 60 * 86_400_000).toISOString().slice(0, 10);
    const res = await t.http.get(
      `/api/v1/metrics/query?metricKey=deals.created_value&from=${from}&granularity=week&dimension=owner&compareTo=previous_year`,
    );
    expect(res.status).toBe(200);
    const data = res.body.data;
    const ref = await sql(
      `select owner_id, coalesce(sum(value), 0)::float8 as v, count(*)::int as n from deal
        where workspace_id = ? and created_at >= ? and created_at < ? group by owner_id`,
      [t.workspaceId, data.from, data.to],
    );
    const refTotal = ref.reduce((sum, r) => sum + Number(r.v), 0);
    expect(data.total).toBeCloseTo(refTotal, 4);
    expect(data.series.reduce((sum: number, b: any) => sum + b.value, 0)).toBeCloseTo(refTotal, 4);
    expect(data.breakdown).toHaveLength(ref.length);
    for (const r of ref) {
      const entry = data.breakdown.find((b: any) => b.dimensionValue === (r.owner_id ?? null));
      expect(entry.total).toBeCloseTo(Number(r.v), 4);
      expect(entry.series.map((b: any) => b.bucket)).toEqual(data.series.map((b: any) => b.bucket));
      expect(entry.series.reduce((sum: number, b: any) => sum + b.value, 0)).toBeCloseTo(Number(r.v), 4);
    }
    expect(data.breakdown.find((b: any) => b.dimensionValue === null)).toMatchObject({
      dimensionLabel: '(none)',
      total: 5,
    });
    expect(data.breakdown.find((b: any) => b.dimensionValue === seller.userId).dimensionLabel).toBe('Sal Seller');
    // The deal created 370 days ago falls in the previous year's window.
    expect(data.compare.total).toBe(60.6);
    // Averages of empty buckets stay null, not 0.
    const avg = await t.http.get(`/api/v1/metrics/query?metricKey=deals.win_rate&from=${from}&granularity=week`);
    expect(avg.body.data.series.some((b: any) => b.value === null)).toBe(true);
  });
});

describe('GET /api/v1/custom-objects/:slug/records?q= (trigram prefilter)', () => {
  it('finds values with quotes, backslashes, wildcards and other cases; record numbers; not keys or other fields', async () => {
    const base = '/api/v1/custom-objects';
    expect((await t.http.post(base, { slug: 'gadgets', singular: 'Gadget', plural: 'Gadgets' })).status).toBe(201);
    for (const f of [
      { slug: 'name', label: 'Name', type: 'text' },
      { slug: 'secret', label: 'Secret', type: 'number' },
    ]) {
      expect((await t.http.post(`${base}/gadgets/fields`, f)).status).toBe(201);
    }
    const names = ['Say "hi"', 'C:\\temp', '100% cotton', 'snake_case', 'ÆBLEGRØD', 'plain', 'line\nbreak'];
    for (const [i, name] of names.entries())
      expect((await t.http.post(`${base}/gadgets/records`, { name, secret: 4242 + i })).status).toBe(201);
    const found = async (q: string) =>
      (await t.http.get(`${base}/gadgets/records?q=${encodeURIComponent(q)}`)).body.data.map((r: any) => r.name).sort();
    expect(await found('"hi"')).toEqual(['Say "hi"']);
    expect(await found('c:\\t')).toEqual(['C:\\temp']);
    expect(await found('0% c')).toEqual(['100% cotton']);
    expect(await found('e_c')).toEqual(['snake_case']);
    expect(await found('%')).toEqual(['100% cotton']);
    expect(await found('blegrø')).toEqual(['ÆBLEGRØD']);
    expect(await found('e\nb')).toEqual(['line\nbreak']);
    expect(await found('PLAIN')).toEqual(['plain']);
    expect(await found('6')).toEqual(['plain']); // record number 6 (the digit appears in no name)
    expect(await found('06')).toEqual([]);
    expect(await found('4242')).toEqual([]); // a number field that is not searchable
    expect(await found('name')).toEqual([]); // a key of the JSON, not a value
  });
});
