import { toNumber } from './conditions';
import { compileExpression, evaluateCompiled, type CompiledExpression, type Scalar } from './expressions';
import { clean } from '../../platform/shared/money';
import type { InputField } from './pricing.schemas';

// Input field values: coerced to their declared type (numbers from numeric strings, checkboxes from
// "true"/"false"), checked against options and bounds; computed fields evaluated in dependency order.

export interface FieldError {
  path: string;
  error: string;
}

export const optionValue = (o: NonNullable<InputField['options']>[number]): string =>
  String(typeof o === 'object' ? o.value : o);

export function coerceFields(
  defs: InputField[],
  given: Record<string, Scalar | null>,
): { values: Record<string, Scalar | null>; errors: FieldError[]; missing: string[] } {
  const values: Record<string, Scalar | null> = Object.create(null) as Record<string, Scalar | null>;
  const errors: FieldError[] = [];
  const missing: string[] = [];
  const declared = new Set(defs.map((d) => d.fieldId));
  // Undeclared values are kept: drafts and simulations may name fields before they are declared.
  for (const [key, value] of Object.entries(given)) if (!declared.has(key)) values[key] = value;
  for (const def of defs) {
    if (def.type === 'computed') continue;
    const path = `fields.${def.fieldId}`;
    let value: Scalar | null | undefined = given[def.fieldId] ?? def.defaultValue;
    if (value === undefined || value === null || value === '') {
      if (def.required) missing.push(def.fieldId);
      values[def.fieldId] = def.type === 'checkbox' ? false : null;
      continue;
    }
    switch (def.type) {
      case 'number':
      case 'slider': {
        const n = toNumber(value);
        if (n === null) {
          errors.push({ path, error: 'must be a number' });
          value = null;
          break;
        }
        if (def.min !== undefined && n < def.min) errors.push({ path, error: `must be at least ${def.min}` });
        if (def.max !== undefined && n > def.max) errors.push({ path, error: `must be at most ${def.max}` });
        value = n;
        break;
      }
      case 'checkbox':
        if (value === true || value === 'true') value = true;
        else if (value === false || value === 'false') value = false;
        else {
          errors.push({ path, error: 'must be a boolean' });
          value = null;
        }
        break;
      case 'select':
      case 'radio': {
        const options = def.options ?? [];
        const match = options.find((o) => optionValue(o) === String(value));
        if (match === undefined) errors.push({ path, error: `must be one of ${options.map(optionValue).join(', ')}` });
        // The option's own value: a numeric option stays a number for expressions.
        else value = typeof match === 'object' ? match.value : match;
        break;
      }
      case 'text':
        value = String(value);
        break;
    }
    values[def.fieldId] = value;
  }
  return { values, errors, missing };
}

/** Computed fields in an order where every field comes after the computed fields it reads; null for a cycle. */
export function computedOrder(
  defs: InputField[],
  compiled: Map<string, CompiledExpression>,
): { order: string[]; cycle: string[] | null } {
  const computed = new Set(defs.filter((d) => d.type === 'computed').map((d) => d.fieldId));
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  let cycle: string[] | null = null;
  const visit = (id: string, path: string[]): void => {
    if (state.get(id) === 'done' || cycle) return;
    if (state.get(id) === 'visiting') {
      cycle = [...path.slice(path.indexOf(id)), id];
      return;
    }
    state.set(id, 'visiting');
    for (const dep of compiled.get(id)?.variables ?? []) if (computed.has(dep)) visit(dep, [...path, id]);
    state.set(id, 'done');
    order.push(id);
  };
  for (const id of computed) visit(id, []);
  return { order, cycle };
}

/**
 * Evaluates computed fields into `values` (numbers cleaned of float noise to 6 decimals); ids in `keep` keep their
 * value.
 */
export function computeFields(
  defs: InputField[],
  values: Record<string, Scalar | null>,
  keep: ReadonlySet<string> = new Set(),
): { values: Record<string, Scalar | null>; warnings: string[] } {
  const warnings: string[] = [];
  const out: Record<string, Scalar | null> = {};
  const known = [...new Set([...defs.map((d) => d.fieldId), ...Object.keys(values)])];
  const compiled = new Map<string, CompiledExpression>();
  for (const def of defs) {
    if (def.type !== 'computed') continue;
    const result = compileExpression(def.expression ?? '', known);
    if (result.ok) compiled.set(def.fieldId, result.compiled);
    else warnings.push(`computed field "${def.fieldId}": ${result.error}`);
  }
  const { order, cycle } = computedOrder(defs, compiled);
  if (cycle) warnings.push(`computed fields depend on each other in a cycle: ${cycle.join(' → ')}`);
  for (const id of order) {
    // A value a rule set explicitly wins over the formula.
    if (keep.has(id)) {
      out[id] = values[id] ?? null;
      continue;
    }
    const expr = compiled.get(id);
    values[id] = null;
    if (!expr || (cycle && (cycle as string[]).includes(id))) {
      out[id] = null;
      continue;
    }
    const result = evaluateCompiled(expr, values);
    const value = result.ok ? (typeof result.value === 'number' ? clean(result.value) : result.value) : null;
    if (!result.ok) warnings.push(`computed field "${id}": ${result.error}`);
    values[id] = value;
    out[id] = value;
  }
  return { values: out, warnings };
}
