import type { Ctx } from '../../platform/context';
import { validation } from '../../platform/errors';
import type { CustomObjectField } from './custom-object.entity';
import { evaluateFormula, FormulaError, formulaReferences, parseFormula } from './formula';

/** Types a formula may read. */
export const FORMULA_INPUT_TYPES = ['number', 'currency'];

/** Parses `expression` for a formula field of an object with `fields`; bad ones are 400. */
export function checkExpression(
  expression: string | undefined | null,
  fields: Array<Pick<CustomObjectField, 'slug' | 'type'>>,
): string {
  if (expression === undefined || expression === null || !expression.trim())
    throw validation('expression is required for formula fields (e.g. "price * qty")', [
      { path: 'expression', error: 'is required' },
    ]);
  let refs: string[];
  try {
    refs = formulaReferences(parseFormula(expression));
  } catch (err) {
    if (err instanceof FormulaError)
      throw validation(`expression: ${err.message}`, [{ path: 'expression', error: err.message }]);
    throw err;
  }
  const bySlug = new Map(fields.map((f) => [f.slug, f]));
  for (const slug of refs) {
    const field = bySlug.get(slug);
    if (!field)
      throw validation(`expression: unknown field ${slug}`, [{ path: 'expression', error: `unknown field ${slug}` }]);
    if (!FORMULA_INPUT_TYPES.includes(field.type))
      throw validation(`expression: ${slug} is a ${field.type} field; formulas read number and currency fields`, [
        { path: 'expression', error: `${slug} is not a number or currency field` },
      ]);
  }
  return expression.trim();
}

/** Sets every formula field of `data` from the record's own values (null results are left out). */
export function applyFormulas(fields: CustomObjectField[], data: Record<string, unknown>): Record<string, unknown> {
  const out = { ...data };
  for (const field of fields) {
    if (field.type !== 'formula' || !field.expression) continue;
    const value = evaluateFormula(parseFormula(field.expression), data);
    if (value === null) delete out[field.slug];
    else out[field.slug] = value;
  }
  return out;
}

/** Recomputes one formula field on every record of its object (after it was created or its expression changed). */
export async function recomputeFormula(ctx: Ctx, field: CustomObjectField): Promise<number> {
  const ast = parseFormula(field.expression ?? '');
  let after = '';
  let changed = 0;
  for (;;) {
    const rows = await ctx.em.execute<{ id: string; data: Record<string, unknown> }[]>(
      'select id, data from custom_object_record where workspace_id = ? and object_id = ? and id > ? order by id limit 1000',
      [ctx.actor.workspaceId, field.objectId, after],
      'all',
    );
    for (const row of rows) {
      const value = evaluateFormula(ast, row.data);
      if (JSON.stringify(row.data[field.slug] ?? null) === JSON.stringify(value)) continue;
      await ctx.em.execute(
        value === null
          ? 'update custom_object_record set data = data - ? where workspace_id = ? and id = ?'
          : 'update custom_object_record set data = jsonb_set(data, array[?]::text[], to_jsonb(?::numeric)) where workspace_id = ? and id = ?',
        value === null
          ? [field.slug, ctx.actor.workspaceId, row.id]
          : [field.slug, value, ctx.actor.workspaceId, row.id],
        'run',
      );
      changed++;
    }
    if (rows.length < 1000) return changed;
    after = rows[rows.length - 1]!.id;
  }
}
