/**
 * `matches_regex` without ReDoS: user patterns are compiled to a Thompson NFA and simulated in
 * O(input × states) time, so no pattern can backtrack exponentially (a backtracking RegExp has
 * no timeout, and a stuck workflow task would block the execution). The subset: literals, `.`,
 * classes, \d\w\s (and negations), \b\B, ^$, groups `( )` `(?: )` `(?<name> )`, `|`, and the
 * quantifiers * + ? {n} {n,} {n,m} (lazy forms accepted). Not supported: backreferences and
 * lookaround, which need backtracking. Flags: i, m, s (g is ignored).
 */

export const MAX_PATTERN_LENGTH = 500;
export const MAX_REGEX_INPUT = 10_000;
/** States × input bounds one test at ≈ 5 M steps (about half a second at worst). */
const MAX_STATES = 500;

type Test = (c: string) => boolean;
type AssertKind = 'start' | 'end' | 'word' | 'nonword';
type Ast =
  | { t: 'char'; test: Test }
  | { t: 'seq'; items: Ast[] }
  | { t: 'alt'; options: Ast[] }
  | { t: 'repeat'; node: Ast; min: number; max: number }
  | { t: 'assert'; kind: AssertKind };

type State =
  | { k: 'char'; test: Test; out: number }
  | { k: 'split'; a: number; b: number }
  | { k: 'assert'; kind: AssertKind; out: number }
  | { k: 'match' };

class PatternError extends Error {}

const isLineTerminator = (c: string): boolean => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
const isWordChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c);
const isDigit: Test = (c) => c >= '0' && c <= '9';
const isSpace: Test = (c) => /\s/.test(c);
/** Escapes that stand for one control character (\t, \n, …, \0). */
const CHAR_ESCAPES: ReadonlyMap<string, string> = new Map([
  ['t', '\t'],
  ['n', '\n'],
  ['r', '\r'],
  ['f', '\f'],
  ['v', '\v'],
  ['0', '\0'],
]);
const not =
  (t: Test): Test =>
  (c) =>
    !t(c);

class Parser {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly dotAll: boolean,
    private readonly ignoreCase: boolean,
  ) {}

  /** Case folding is applied to literals and classes before negation ([^a-z] with i excludes A). */
  private fold(test: Test): Test {
    return this.ignoreCase ? (x) => test(x) || test(x.toLowerCase()) || test(x.toUpperCase()) : test;
  }

  parse(): Ast {
    const ast = this.alt();
    if (this.i < this.src.length) throw new PatternError(`unmatched ")" at position ${this.i}`);
    return ast;
  }

  private peek = (): string | undefined => this.src[this.i];

  private alt(): Ast {
    const options = [this.seq()];
    while (this.peek() === '|') {
      this.i++;
      options.push(this.seq());
    }
    return options.length === 1 ? options[0]! : { t: 'alt', options };
  }

  private seq(): Ast {
    const items: Ast[] = [];
    while (this.i < this.src.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return { t: 'seq', items };
  }

  private quantified(atom: Ast): Ast {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(this.src.slice(this.i));
      if (!m) return atom; // a "{" that is not a quantifier is a literal, as in JavaScript
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      if (max < min) throw new PatternError('quantifier range out of order');
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.peek() === '?') this.i++; // lazy: same answer for a yes/no match
    if (atom.t === 'assert') throw new PatternError('nothing to repeat');
    const q = this.peek();
    if (q === '*' || q === '+' || q === '?') throw new PatternError('nothing to repeat');
    return { t: 'repeat', node: atom, min, max };
  }

  private atom(): Ast {
    const c = this.src[this.i++]!;
    switch (c) {
      case '(': {
        if (this.src.startsWith('?:', this.i)) this.i += 2;
        else if (/^\?<[A-Za-z_$][\w$]*>/.test(this.src.slice(this.i))) this.i = this.src.indexOf('>', this.i) + 1;
        else if (this.peek() === '?') throw new PatternError('lookahead and lookbehind are not supported');
        const inner = this.alt();
        if (this.peek() !== ')') throw new PatternError('unterminated group');
        this.i++;
        return inner;
      }
      case '[':
        return this.charClass();
      case '.':
        return { t: 'char', test: this.dotAll ? () => true : not(isLineTerminator) };
      case '^':
        return { t: 'assert', kind: 'start' };
      case '$':
        return { t: 'assert', kind: 'end' };
      case '\\':
        return this.escape();
      case '*':
      case '+':
      case '?':
        throw new PatternError('nothing to repeat');
      case ')':
        throw new PatternError('unmatched ")"');
      default:
        return { t: 'char', test: this.fold((x) => x === c) };
    }
  }

  /** After a backslash: a literal, a class (\d …) or an assertion (\b, \B outside classes). */
  private readEscape(inClass: boolean): { ch: string } | { test: Test } | { assert: AssertKind } {
    const c = this.src[this.i++];
    if (c === undefined) throw new PatternError('pattern ends with a backslash');
    const ch = CHAR_ESCAPES.get(c);
    if (ch !== undefined) return { ch };
    switch (c) {
      case 'd':
        return { test: isDigit };
      case 'D':
        return { test: not(isDigit) };
      case 'w':
        return { test: isWordChar };
      case 'W':
        return { test: not(isWordChar) };
      case 's':
        return { test: isSpace };
      case 'S':
        return { test: not(isSpace) };
      case 'b':
        return inClass ? { ch: '\b' } : { assert: 'word' };
      case 'B':
        if (inClass) throw new PatternError('\\B inside a character class');
        return { assert: 'nonword' };
      case 'x':
      case 'u': {
        const len = c === 'x' ? 2 : 4;
        const hex = this.src.slice(this.i, this.i + len);
        if (hex.length !== len || !/^[0-9a-fA-F]+$/.test(hex)) throw new PatternError(`invalid \\${c} escape`);
        this.i += len;
        return { ch: String.fromCharCode(parseInt(hex, 16)) };
      }
      default:
        if (/[1-9]/.test(c) || c === 'k') throw new PatternError('backreferences are not supported');
        if (/[A-Za-z]/.test(c)) throw new PatternError(`unsupported escape \\${c}`);
        return { ch: c };
    }
  }

  private escape(): Ast {
    const e = this.readEscape(false);
    if ('assert' in e) return { t: 'assert', kind: e.assert };
    if ('test' in e) return { t: 'char', test: e.test };
    const ch = e.ch;
    return { t: 'char', test: this.fold((x) => x === ch) };
  }

  private charClass(): Ast {
    const negate = this.peek() === '^';
    if (negate) this.i++;
    const parts: Test[] = [];
    while (this.peek() !== ']') {
      if (this.i >= this.src.length) throw new PatternError('unterminated character class');
      const from = this.classAtom();
      const next = this.src[this.i + 1];
      if (this.peek() === '-' && next !== ']' && next !== undefined && typeof from === 'string') {
        this.i++;
        const to = this.classAtom();
        if (typeof to !== 'string') throw new PatternError('invalid character class range');
        if (to < from) throw new PatternError('character class range out of order');
        parts.push((x) => x >= from && x <= to);
      } else parts.push(typeof from === 'string' ? (x) => x === from : from);
    }
    this.i++;
    const any: Test = this.fold((x) => parts.some((p) => p(x)));
    return { t: 'char', test: negate ? not(any) : any };
  }

  /** One class member: a character, or a class escape such as \d. */
  private classAtom(): string | Test {
    const c = this.src[this.i++]!;
    if (c !== '\\') return c;
    const e = this.readEscape(true);
    if ('assert' in e) throw new PatternError('invalid escape in character class');
    return 'test' in e ? e.test : e.ch;
  }
}

function compile(ast: Ast): State[] {
  const states: State[] = [{ k: 'match' }];
  const push = (s: State): number => {
    if (states.length >= MAX_STATES) throw new PatternError('pattern too complex (expand fewer repetitions)');
    states.push(s);
    return states.length - 1;
  };
  const build = (node: Ast, out: number): number => {
    switch (node.t) {
      case 'char':
        return push({ k: 'char', test: node.test, out });
      case 'assert':
        return push({ k: 'assert', kind: node.kind, out });
      case 'seq': {
        let cur = out;
        for (let j = node.items.length - 1; j >= 0; j--) cur = build(node.items[j]!, cur);
        return cur;
      }
      case 'alt': {
        let cur = build(node.options[node.options.length - 1]!, out);
        for (let j = node.options.length - 2; j >= 0; j--)
          cur = push({ k: 'split', a: build(node.options[j]!, out), b: cur });
        return cur;
      }
      case 'repeat': {
        let cur = out;
        if (node.max === Infinity) {
          const loop = push({ k: 'split', a: -1, b: out });
          (states[loop] as { a: number }).a = build(node.node, loop);
          cur = loop;
        } else {
          for (let j = 0; j < node.max - node.min; j++) cur = push({ k: 'split', a: build(node.node, cur), b: out });
        }
        for (let j = 0; j < node.min; j++) cur = build(node.node, cur);
        return cur;
      }
    }
  };
  const start = build(ast, 0);
  states.push({ k: 'split', a: start, b: start }); // the entry is always the last state
  return states;
}

export interface SafeRegex {
  test(input: string): boolean;
}

function simulate(states: State[], text: string, flags: { m: boolean }): boolean {
  const entry = states.length - 1;
  const marks = new Int32Array(states.length).fill(-1);
  const stack: number[] = [];
  const asserts = (kind: AssertKind, pos: number): boolean => {
    const before = text[pos - 1];
    const after = text[pos];
    if (kind === 'start') return pos === 0 || (flags.m && isLineTerminator(before!));
    if (kind === 'end') return pos === text.length || (flags.m && isLineTerminator(after!));
    const boundary = isWordChar(before) !== isWordChar(after);
    return kind === 'word' ? boundary : !boundary;
  };
  let gen = 0;
  /** Follows epsilon moves from `from`; char states land in `list`. True when the match state is reached. */
  const add = (list: number[], from: number, pos: number): boolean => {
    stack.length = 0;
    stack.push(from);
    while (stack.length) {
      const idx = stack.pop()!;
      if (marks[idx] === gen) continue;
      marks[idx] = gen;
      const s = states[idx]!;
      if (s.k === 'match') return true;
      if (s.k === 'split') stack.push(s.b, s.a);
      else if (s.k === 'assert') {
        if (asserts(s.kind, pos)) stack.push(s.out);
      } else list.push(idx);
    }
    return false;
  };
  let current: number[] = [];
  for (let pos = 0; ; pos++) {
    // Unanchored search: a new attempt starts at every position, in the same pass.
    if (add(current, entry, pos)) return true;
    if (pos >= text.length) return false;
    const c = text[pos]!;
    const next: number[] = [];
    gen++;
    for (const idx of current) {
      const s = states[idx] as Extract<State, { k: 'char' }>;
      if (s.test(c) && add(next, s.out, pos + 1)) return true;
    }
    current = next;
  }
}

/** Accepts "pattern" or "/pattern/flags". */
export function parseRegexValue(value: string): { source: string; flags: string } {
  const m = /^\/([\s\S]*)\/([a-z]*)$/.exec(value);
  return m ? { source: m[1]!, flags: m[2]! } : { source: value, flags: '' };
}

export function compileSafeRegex(
  source: string,
  flags = '',
): { ok: true; regex: SafeRegex } | { ok: false; error: string } {
  if (source.length > MAX_PATTERN_LENGTH)
    return { ok: false, error: `pattern must be at most ${MAX_PATTERN_LENGTH} characters` };
  const bad = flags.replace(/[imsg]/g, '');
  if (bad) return { ok: false, error: `unsupported regex flag(s) ${bad} (i, m and s are supported)` };
  try {
    const states = compile(new Parser(source, flags.includes('s'), flags.includes('i')).parse());
    const f = { m: flags.includes('m') };
    return { ok: true, regex: { test: (input) => input.length <= MAX_REGEX_INPUT && simulate(states, input, f) } };
  } catch (err) {
    if (err instanceof PatternError) return { ok: false, error: `invalid pattern: ${err.message}` };
    throw err;
  }
}
