/**
 * The comparison operators that the record conditions share (lead scoring and routing rules, the custom-field search),
 * in the order they are documented.
 */
export const COMPARISON_OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'greater_than',
  'less_than',
  'exists',
  'not_exists',
  'in',
] as const;

/** A value a condition compares with. */
export type Scalar = string | number | boolean;
