// Formula fields: a tiny, pure arithmetic language evaluated without eval/Function.
// Grammar: expr := term (('+' | '-') term)* ; term := unary (('*' | '/') unary)* ;
//          unary := ('+' | '-') unary | number | fieldSlug | '(' expr ')'

export const MAX_EXPRESSION_LENGTH = 500;
const MAX_DEPTH = 50;

export type FormulaNode =
  | { kind: 'num'; value: number }
  | { kind: 'ref'; slug: string }
  | { kind: 'neg'; arg: FormulaNode }
  | { kind: 'bin'; op: '+' | '-' | '*' | '/'; left: FormulaNode; right: FormulaNode };

export class FormulaError extends Error {}

type Token =
  { t: 'num'; v: number; at: number } | { t: 'ref'; v: string; at: number } | { t: 'op'; v: string; at: number };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const num = /^(\d+(\.\d+)?|\.\d+)([eE][+-]?\d+)?/.exec(src.slice(i));
    if (num) {
      out.push({ t: 'num', v: Number(num[0]), at: i });
      i += num[0].length;
      continue;
    }
    const ref = /^[a-zA-Z][a-zA-Z0-9_]*/.exec(src.slice(i));
    if (ref) {
      out.push({ t: 'ref', v: ref[0], at: i });
      i += ref[0].length;
      continue;
    }
    if ('+-*/()'.includes(c)) {
      out.push({ t: 'op', v: c, at: i });
      i++;
      continue;
    }
    throw new FormulaError(`unexpected character ${JSON.stringify(c)} at position ${i + 1}`);
  }
  return out;
}

/** Parses an expression; throws FormulaError with a message fit for a 400. */
export function parseFormula(src: string): FormulaNode {
  if (typeof src !== 'string' || !src.trim()) throw new FormulaError('expression is empty');
  if (src.length > MAX_EXPRESSION_LENGTH)
    throw new FormulaError(`expression must be at most ${MAX_EXPRESSION_LENGTH} characters`);
  const tokens = tokenize(src);
  let pos = 0;
  const peek = (): Token | undefined => tokens[pos];
  const isOp = (tok: Token | undefined, ...ops: string[]): boolean => tok?.t === 'op' && ops.includes(tok.v);
  const where = (): string => (peek() ? `at position ${peek()!.at + 1}` : 'at the end');

  /** A left-associative level of the grammar: `operand (op operand)*` with one of `ops`. */
  const binary =
    (operand: (depth: number) => FormulaNode, ...ops: ('+' | '-' | '*' | '/')[]) =>
    (depth: number): FormulaNode => {
      let left = operand(depth);
      while (isOp(peek(), ...ops)) {
        const op = tokens[pos++]!.v as (typeof ops)[number];
        left = { kind: 'bin', op, left, right: operand(depth) };
      }
      return left;
    };
  const term = binary(unary, '*', '/');
  const expr = binary(term, '+', '-');
  function unary(depth: number): FormulaNode {
    if (depth > MAX_DEPTH) throw new FormulaError(`expression nests deeper than ${MAX_DEPTH} levels`);
    const tok = peek();
    if (!tok) throw new FormulaError('expression ends too early');
    if (isOp(tok, '-', '+')) {
      pos++;
      const arg = unary(depth + 1);
      return tok.v === '-' ? { kind: 'neg', arg } : arg;
    }
    if (isOp(tok, '(')) {
      pos++;
      const inner = expr(depth + 1);
      if (!isOp(peek(), ')')) throw new FormulaError(`missing ) ${where()}`);
      pos++;
      return inner;
    }
    pos++;
    if (tok.t === 'num') return { kind: 'num', value: tok.v };
    if (tok.t === 'ref') return { kind: 'ref', slug: tok.v };
    throw new FormulaError(`unexpected ${JSON.stringify(tok.v)} at position ${tok.at + 1}`);
  }

  const ast = expr(0);
  if (pos < tokens.length)
    throw new FormulaError(`unexpected ${JSON.stringify(tokens[pos]!.v)} at position ${tokens[pos]!.at + 1}`);
  return ast;
}

/** Field slugs an expression reads (each once, in order of appearance). */
export function formulaReferences(node: FormulaNode, out: string[] = []): string[] {
  if (node.kind === 'ref' && !out.includes(node.slug)) out.push(node.slug);
  if (node.kind === 'neg') formulaReferences(node.arg, out);
  if (node.kind === 'bin') {
    formulaReferences(node.left, out);
    formulaReferences(node.right, out);
  }
  return out;
}

/**
 * The value of an expression for one record: null when an input is empty or not a number, on a
 * division by zero or a non-finite result. Results are rounded to 10 decimals (0.1 + 0.2 = 0.3).
 */
export function evaluateFormula(node: FormulaNode, values: Record<string, unknown>): number | null {
  const run = (n: FormulaNode): number | null => {
    switch (n.kind) {
      case 'num':
        return n.value;
      case 'ref': {
        const v = Object.prototype.hasOwnProperty.call(values, n.slug) ? values[n.slug] : undefined;
        return typeof v === 'number' && Number.isFinite(v) ? v : null;
      }
      case 'neg': {
        const v = run(n.arg);
        return v === null ? null : -v;
      }
      case 'bin': {
        const l = run(n.left);
        const r = run(n.right);
        if (l === null || r === null) return null;
        if (n.op === '/' && r === 0) return null;
        return n.op === '+' ? l + r : n.op === '-' ? l - r : n.op === '*' ? l * r : l / r;
      }
    }
  };
  const result = run(node);
  if (result === null || !Number.isFinite(result)) return null;
  const rounded = Math.round(result * 1e10) / 1e10;
  return Object.is(rounded, -0) ? 0 : rounded;
}
