import { matches, type ConditionOperator, type ConditionValue, type Subject } from './conditions';
import type { ScoreBreakdownEntry } from './lead.entity';

export const MIN_SCORE = 0;
export const MAX_SCORE = 100;

export interface ScoringRuleLike {
  _id: string;
  name: string;
  field: string;
  condition: ConditionOperator;
  value?: ConditionValue;
  points: number;
  isActive: boolean;
}

export interface ScoreResult {
  score: number;
  breakdown: ScoreBreakdownEntry[];
}

/**
 * Sums the points of every active rule that matches, clamped to 0..100 (spec: Limits). The
 * breakdown lists each matched rule in rule order, so clients can explain the score; a negative
 * total still lists its rules although the score is 0.
 */
export function scoreLead(rules: readonly ScoringRuleLike[], subject: Subject): ScoreResult {
  const breakdown: ScoreBreakdownEntry[] = [];
  let total = 0;
  for (const rule of rules) {
    if (!rule.isActive) continue;
    if (!matches(subject, { field: rule.field, operator: rule.condition, value: rule.value })) continue;
    total += rule.points;
    breakdown.push({
      ruleId: rule._id,
      name: rule.name,
      field: rule.field,
      condition: rule.condition,
      points: rule.points,
    });
  }
  return { score: Math.min(MAX_SCORE, Math.max(MIN_SCORE, total)), breakdown };
}

/** Whether a stored score differs from a fresh result (the background rescore writes only those). */
export function scoreChanged(
  current: { score: number; scoreBreakdown: readonly ScoreBreakdownEntry[] },
  next: ScoreResult,
): boolean {
  if (current.score !== next.score || current.scoreBreakdown.length !== next.breakdown.length) return true;
  // Field by field: jsonb does not keep key order, so serialized forms may differ for equal entries.
  return next.breakdown.some((entry, i) => {
    const stored = current.scoreBreakdown[i]!;
    return (Object.keys(entry) as (keyof ScoreBreakdownEntry)[]).some((key) => stored[key] !== entry[key]);
  });
}
