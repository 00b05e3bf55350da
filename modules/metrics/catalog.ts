// The built-in metric catalog: each entry is what clients see plus how it is computed (pure data).

export const METRIC_FORMATS = ['integer', 'currency', 'percent', 'duration', 'decimal'] as const;
export type MetricFormat = (typeof METRIC_FORMATS)[number];
export type MetricMode = 'flow' | 'snapshot';
export type MeasureType = 'count' | 'sum' | 'average' | 'ratio' | 'external';

/** How a dimension's raw values get labels: users and pipeline records by name, the rest as they are. */
export type DimensionLabel = 'user' | 'flow' | 'stage' | 'value';

export interface DimensionDef {
  key: string;
  label: string;
  column: string;
  labels: DimensionLabel;
}

export interface MetricDef {
  key: string;
  label: string;
  description: string;
  category: string;
  format: MetricFormat;
  mode: MetricMode;
  measureType: MeasureType;
  table: string;
  /** Timestamp column that places a row in a bucket (flow metrics). */
  timeColumn: string;
  /** SQL aggregate over alias `t`. */
  aggregate: string;
  /** Extra SQL condition over alias `t` (no parameters). */
  where?: string;
  dimensions: DimensionDef[];
}

const owner = (column = 'owner_id'): DimensionDef => ({ key: 'owner', label: 'Owner', column, labels: 'user' });
const plain = (key: string, label: string, column = key): DimensionDef => ({ key, label, column, labels: 'value' });
const dealDims = [
  owner(),
  { key: 'flow', label: 'Pipeline', column: 'flow_id', labels: 'flow' } as DimensionDef,
  { key: 'stage', label: 'Stage', column: 'stage_id', labels: 'stage' } as DimensionDef,
  plain('status', 'Status'),
  plain('priority', 'Priority'),
];
const leadDims = [plain('source', 'Source'), plain('status', 'Status'), owner()];

const count = 'count(*)::float8';
const sumValue = 'coalesce(sum(t.value), 0)::float8';

export const BUILT_IN_METRICS: readonly MetricDef[] = [
  {
    key: 'deals.created',
    label: 'Deals created',
    description: 'Deals created in the period.',
    category: 'sales',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'deal',
    timeColumn: 'created_at',
    aggregate: count,
    dimensions: dealDims,
  },
  {
    key: 'deals.created_value',
    label: 'Value of deals created',
    description: 'Sum of the value of deals created in the period.',
    category: 'sales',
    format: 'currency',
    mode: 'flow',
    measureType: 'sum',
    table: 'deal',
    timeColumn: 'created_at',
    aggregate: sumValue,
    dimensions: dealDims,
  },
  {
    key: 'deals.won',
    label: 'Deals won',
    description: 'Deals won in the period (by won date).',
    category: 'sales',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'deal',
    timeColumn: 'won_date',
    aggregate: count,
    where: `t.status = 'won'`,
    dimensions: dealDims,
  },
  {
    key: 'deals.won_value',
    label: 'Won revenue',
    description: 'Sum of the value of deals won in the period (by won date).',
    category: 'sales',
    format: 'currency',
    mode: 'flow',
    measureType: 'sum',
    table: 'deal',
    timeColumn: 'won_date',
    aggregate: sumValue,
    where: `t.status = 'won'`,
    dimensions: dealDims,
  },
  {
    key: 'deals.lost',
    label: 'Deals lost',
    description: 'Deals lost in the period (by lost date).',
    category: 'sales',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'deal',
    timeColumn: 'lost_date',
    aggregate: count,
    where: `t.status = 'lost'`,
    dimensions: dealDims,
  },
  {
    key: 'deals.win_rate',
    label: 'Win rate',
    description: 'Won deals as a percentage of deals closed (won or lost) in the period.',
    category: 'sales',
    format: 'percent',
    mode: 'flow',
    measureType: 'ratio',
    table: 'deal',
    timeColumn: 'coalesce(t.won_date, t.lost_date)',
    aggregate: `(100.0 * count(*) filter (where t.status = 'won') / nullif(count(*), 0))::float8`,
    where: `t.status in ('won', 'lost')`,
    dimensions: dealDims,
  },
  {
    key: 'deals.open',
    label: 'Open deals',
    description: 'Deals open now.',
    category: 'sales',
    format: 'integer',
    mode: 'snapshot',
    measureType: 'count',
    table: 'deal',
    timeColumn: 'created_at',
    aggregate: count,
    where: `t.status = 'open'`,
    dimensions: dealDims,
  },
  {
    key: 'deals.open_value',
    label: 'Open pipeline value',
    description: 'Sum of the value of deals open now.',
    category: 'sales',
    format: 'currency',
    mode: 'snapshot',
    measureType: 'sum',
    table: 'deal',
    timeColumn: 'created_at',
    aggregate: sumValue,
    where: `t.status = 'open'`,
    dimensions: dealDims,
  },
  {
    key: 'leads.created',
    label: 'Leads created',
    description: 'Leads created in the period.',
    category: 'leads',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'lead',
    timeColumn: 'created_at',
    aggregate: count,
    dimensions: leadDims,
  },
  {
    key: 'leads.value',
    label: 'Value of leads created',
    description: 'Sum of the value of leads created in the period.',
    category: 'leads',
    format: 'currency',
    mode: 'flow',
    measureType: 'sum',
    table: 'lead',
    timeColumn: 'created_at',
    aggregate: sumValue,
    dimensions: leadDims,
  },
  {
    key: 'leads.average_score',
    label: 'Average lead score',
    description: 'Average score of all leads now.',
    category: 'leads',
    format: 'decimal',
    mode: 'snapshot',
    measureType: 'average',
    table: 'lead',
    timeColumn: 'created_at',
    aggregate: 'avg(t.score)::float8',
    dimensions: leadDims,
  },
  {
    key: 'activities.logged',
    label: 'Activities logged',
    description: 'Timeline activities (calls, meetings, e-mails, …) dated in the period; record history excluded.',
    category: 'activity',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'activity',
    timeColumn: 'date',
    aggregate: count,
    where: 'not t.system',
    dimensions: [plain('type', 'Type'), owner()],
  },
  {
    key: 'calls.created',
    label: 'Calls',
    description: 'Calls recorded in the period.',
    category: 'activity',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'call',
    timeColumn: 'created_at',
    aggregate: count,
    dimensions: [plain('direction', 'Direction'), plain('status', 'Status')],
  },
  {
    key: 'calls.duration',
    label: 'Call time',
    description: 'Total duration of calls recorded in the period (seconds).',
    category: 'activity',
    format: 'duration',
    mode: 'flow',
    measureType: 'sum',
    table: 'call',
    timeColumn: 'created_at',
    aggregate: 'coalesce(sum(t.duration), 0)::float8',
    dimensions: [plain('direction', 'Direction'), plain('status', 'Status')],
  },
  {
    key: 'tasks.created',
    label: 'Tasks created',
    description: 'Tasks created in the period.',
    category: 'activity',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'task',
    timeColumn: 'created_at',
    aggregate: count,
    dimensions: [plain('status', 'Status'), plain('priority', 'Priority'), owner('owner')],
  },
  {
    key: 'tasks.open',
    label: 'Open tasks',
    description: 'Tasks not done now.',
    category: 'activity',
    format: 'integer',
    mode: 'snapshot',
    measureType: 'count',
    table: 'task',
    timeColumn: 'created_at',
    aggregate: count,
    where: `t.status <> 'done'`,
    dimensions: [plain('status', 'Status'), plain('priority', 'Priority'), owner('owner')],
  },
  {
    key: 'companies.created',
    label: 'Companies created',
    description: 'Companies created in the period.',
    category: 'contacts',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'company',
    timeColumn: 'created_at',
    aggregate: count,
    dimensions: [plain('industry', 'Industry'), owner()],
  },
  {
    key: 'people.created',
    label: 'People created',
    description: 'People created in the period.',
    category: 'contacts',
    format: 'integer',
    mode: 'flow',
    measureType: 'count',
    table: 'person',
    timeColumn: 'created_at',
    aggregate: count,
    dimensions: [owner()],
  },
];

export const EXTERNAL_PREFIX = 'external:';

/** Public catalog entry (spec: key, label, description, category, format, mode, dimensions, measureType). */
export function catalogEntry(
  def: Pick<MetricDef, 'key' | 'label' | 'description' | 'category' | 'format' | 'mode' | 'measureType'> & {
    dimensions: { key: string; label: string }[];
  },
) {
  return {
    key: def.key,
    label: def.label,
    description: def.description,
    category: def.category,
    format: def.format,
    mode: def.mode,
    measureType: def.measureType,
    dimensions: def.dimensions.map((d) => ({ key: d.key, label: d.label })),
  };
}
