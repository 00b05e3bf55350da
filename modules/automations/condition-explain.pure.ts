/**
 * Why a condition node took its branch (issue 27), in words: for the step log (`output.reason`,
 * with the values read) and for the Temporal Web UI (the workflow's current details, without values:
 * operators see which branch and which conditions, record values stay in Postgres). Pure.
 */
import type { ConditionCheck } from './conditions.pure';

const MAX_VALUE = 60;

const show = (v: unknown): string => {
  if (v === undefined) return 'missing';
  const s = typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > MAX_VALUE ? `${s.slice(0, MAX_VALUE)}…` : s;
};

const rule = (c: ConditionCheck, values: boolean): string =>
  `${c.field} ${c.operator}${c.expected === undefined || c.expected === null || c.expected === '' ? '' : ` ${values ? show(c.expected) : '…'}`}` +
  (values ? ` (value ${show(c.actual)})` : '');

/** "branch true: every condition met (and): lead.score greater_than 50 (value 70)". */
export function explainBranch(
  checks: readonly ConditionCheck[],
  logic: 'and' | 'or',
  result: boolean,
  opts: { values?: boolean } = {},
): string {
  const values = opts.values ?? true;
  const met = checks.filter((c) => c.passed);
  const unmet = checks.filter((c) => !c.passed);
  const list = (cs: readonly ConditionCheck[]) => cs.map((c) => rule(c, values)).join('; ');
  let why: string;
  if (checks.length === 0)
    why = logic === 'and' ? 'no conditions (and of none is met)' : 'no conditions (or of none is not met)';
  else if (logic === 'and') why = result ? `every condition met (and): ${list(met)}` : `not met (and): ${list(unmet)}`;
  else why = result ? `met (or): ${list(met)}` : `no condition met (or): ${list(unmet)}`;
  return `branch ${result ? 'true' : 'false'}: ${why}`;
}

/** The Web UI's "current details" of a run: one line per condition node decided so far (bounded). */
export function conditionDetails(lines: readonly string[]): string {
  const shown = lines.slice(-20).map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l));
  const more =
    lines.length > shown.length ? [`(${lines.length - shown.length} earlier condition nodes not shown)`] : [];
  return ['**Condition nodes**', ...more, ...shown.map((l) => `- ${l}`)].join('\n');
}
