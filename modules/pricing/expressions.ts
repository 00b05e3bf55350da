import { Parser, type Expression } from 'expr-eval-fork';

// Expressions of computed fields and `…Expression` action parameters: parsed by expr-eval-fork (no
// eval, no Function), with member access, arrays, assignment, function definitions, `in`, string
// concatenation and random switched off, and every token checked against a whitelist after parsing.

export const MAX_EXPRESSION_LENGTH = 500;

/** Functions callable as `name(a, b, …)`. */
const FUNCTIONS = ['min', 'max', 'if', 'roundTo'] as const;
/** Prefix operators (`round x` or `round(x)`). */
const UNARY = ['-', '+', 'not', 'abs', 'ceil', 'floor', 'round', 'trunc', 'sqrt', 'sign'] as const;
const BINARY = ['+', '-', '*', '/', '%', '^', '==', '!=', '>', '<', '>=', '<=', 'and', 'or'] as const;
const CONSTANTS = ['true', 'false', 'PI'] as const;

export const EXPRESSION_VOCABULARY = {
  maxLength: MAX_EXPRESSION_LENGTH,
  arithmetic: ['+', '-', '*', '/', '%', '^ (power)', 'unary -'],
  comparison: ['==', '!=', '>', '<', '>=', '<='],
  logic: ['and', 'or', 'not', 'cond ? a : b'],
  functions: {
    'min(a, b, …)': 'smallest argument',
    'max(a, b, …)': 'largest argument',
    'if(cond, a, b)': 'a when cond is true, else b',
    'roundTo(x, n)': 'x rounded to n decimals',
    'round(x)': 'nearest integer',
    'ceil(x)': 'smallest integer ≥ x',
    'floor(x)': 'largest integer ≤ x',
    'trunc(x)': 'integer part',
    'abs(x)': 'absolute value',
    'sqrt(x)': 'square root',
    'sign(x)': '-1, 0 or 1',
  },
  constants: ['true', 'false', 'PI'],
  literals: 'numbers and "double-quoted strings" (for comparisons: material == "wood")',
  variables:
    'input and computed field ids; in actions also subtotal, quantity, unitPrice (line rules) and manualDiscountPercent',
  forbidden:
    'member access (a.b), indexing (a[0]), arrays, assignment, function definitions, `in`, `||`, random; any name that is not a known variable or function',
};

const parser = new Parser({
  allowMemberAccess: false,
  operators: { in: false, assignment: false, fndef: false, concatenate: false, factorial: false, random: false },
});
// The parser keeps its own tables of callable names: strip them down to the whitelist.
for (const table of [
  [parser.functions, FUNCTIONS],
  [parser.unaryOps, UNARY],
  [parser.consts, CONSTANTS],
] as const) {
  for (const key of Object.keys(table[0] as object))
    if (!(table[1] as readonly string[]).includes(key)) delete (table[0] as Record<string, unknown>)[key];
}

const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names that must never resolve, whatever the caller passes as variables. */
export const isReservedName = (name: string): boolean =>
  name in Object.prototype || name === '__proto__' || name === 'prototype' || name === 'constructor';

export interface CompiledExpression {
  source: string;
  expr: Expression;
  variables: string[];
}
export type CompileResult = { ok: true; compiled: CompiledExpression } | { ok: false; error: string };

interface Token {
  type: string;
  value: unknown;
}

function checkTokens(tokens: Token[], allowed: ReadonlySet<string>, vars: Set<string>): string | null {
  for (const token of tokens) {
    switch (token.type) {
      case 'INUMBER':
        if (typeof token.value !== 'number' && typeof token.value !== 'string' && typeof token.value !== 'boolean')
          return 'unsupported literal';
        break;
      case 'IOP1':
        if (!(UNARY as readonly string[]).includes(String(token.value)))
          return `operator "${String(token.value)}" is not allowed`;
        break;
      case 'IOP2':
        if (!(BINARY as readonly string[]).includes(String(token.value)))
          return `operator "${String(token.value)}" is not allowed`;
        break;
      case 'IOP3':
        if (token.value !== '?') return `operator "${String(token.value)}" is not allowed`;
        break;
      case 'IFUNCALL':
        break;
      case 'IEXPR': {
        const inner = checkTokens(token.value as Token[], allowed, vars);
        if (inner) return inner;
        break;
      }
      case 'IVAR': {
        const name = String(token.value);
        if (isReservedName(name) || !IDENT_RE.test(name)) return `"${name}" is not allowed`;
        if (
          (FUNCTIONS as readonly string[]).includes(name) ||
          (UNARY as readonly string[]).includes(name) ||
          (CONSTANTS as readonly string[]).includes(name)
        )
          break;
        if (!allowed.has(name)) return `unknown variable "${name}"`;
        vars.add(name);
        break;
      }
      default:
        return token.type === 'IMEMBER'
          ? 'member access is not allowed'
          : token.type === 'IARRAY'
            ? 'arrays are not allowed'
            : 'unsupported syntax';
    }
  }
  return null;
}

/** Parses and checks an expression against the variables it may read. */
export function compileExpression(source: string, allowedVariables: Iterable<string>): CompileResult {
  if (typeof source !== 'string' || !source.trim()) return { ok: false, error: 'expression is empty' };
  if (source.length > MAX_EXPRESSION_LENGTH)
    return { ok: false, error: `expression is longer than ${MAX_EXPRESSION_LENGTH} characters` };
  let expr: Expression;
  try {
    expr = parser.parse(source);
  } catch (err) {
    return { ok: false, error: `syntax error: ${(err as Error).message}` };
  }
  const vars = new Set<string>();
  const problem = checkTokens((expr as unknown as { tokens: Token[] }).tokens, new Set(allowedVariables), vars);
  if (problem) return { ok: false, error: problem };
  return { ok: true, compiled: { source, expr, variables: [...vars] } };
}

export type Scalar = number | string | boolean;
export type EvalResult = { ok: true; value: number | boolean | string } | { ok: false; error: string };

/** Evaluates with the given variables (a null-prototype copy); a variable without a value is an error. */
export function evaluateCompiled(
  compiled: CompiledExpression,
  scope: Record<string, Scalar | null | undefined>,
): EvalResult {
  const values = Object.create(null) as Record<string, Scalar>;
  for (const name of compiled.variables) {
    const value = scope[name];
    if (value === null || value === undefined) return { ok: false, error: `"${name}" has no value` };
    values[name] = value;
  }
  let result: unknown;
  try {
    result = compiled.expr.evaluate(values as never);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
  if (typeof result === 'boolean' || typeof result === 'string') return { ok: true, value: result };
  if (typeof result === 'number' && Number.isFinite(result)) return { ok: true, value: result };
  return {
    ok: false,
    error:
      typeof result === 'number'
        ? 'the result is not a finite number (division by zero?)'
        : 'the result is not a number',
  };
}

/** Compile + evaluate in one step (expressions in rules are compiled once per evaluation). */
export function evaluateExpression(source: string, scope: Record<string, Scalar | null | undefined>): EvalResult {
  const compiled = compileExpression(source, Object.keys(scope));
  return compiled.ok ? evaluateCompiled(compiled.compiled, scope) : compiled;
}
