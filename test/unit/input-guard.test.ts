import type { Context } from 'koa';
import { bodyParseError, findInputProblem, inputGuard, MAX_INPUT_DEPTH } from '../../platform/http/input-guard';
import { DomainError } from '../../platform/errors';
import { createLogger, serializeError, withoutStatement } from '../../platform/logger';

const nest = (levels: number, leaf: unknown = 1): unknown => {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};
const nestArrays = (levels: number): unknown => {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
};

describe('findInputProblem', () => {
  it.each<[string, unknown, string, RegExp]>([
    ['NUL in a value', { name: 'a\u0000b' }, 'body.name', /NUL character \(U\+0000\)/],
    ['NUL alone', '\u0000', 'body', /NUL/],
    ['lone high surrogate', { name: 'x\ud800' }, 'body.name', /lone UTF-16 surrogate \(U\+D800\)/],
    ['lone low surrogate', { name: '\udc00y' }, 'body.name', /lone UTF-16 surrogate \(U\+DC00\)/],
    ['reversed pair', { name: '\udc00\ud800' }, 'body.name', /lone UTF-16 surrogate \(U\+DC00\)/],
    ['high surrogate at the end after a valid pair', { name: '😀\ud83d' }, 'body.name', /U\+D83D/],
    ['nested in arrays', { items: [{ title: 'ok' }, { title: 'x\u0000' }] }, 'body.items.1.title', /NUL/],
    ['in an array of strings', { tags: ['a', 'b\ud800'] }, 'body.tags.1', /surrogate/],
    ['in an object key', { ['bad\u0000key']: 1 }, 'body."bad\\u0000key"', /\(an object key\) contains a NUL/],
    ['in a nested key', { customFields: { ['k\ud800']: 'v' } }, 'body.customFields."k\\ud800"', /object key/],
    ['a long key is shown cut', { ['k'.repeat(100) + '\u0000']: 1 }, `body."${'k'.repeat(60)}…"`, /object key/],
    ['the first of several, in document order', { a: 'ok', b: ['x', '\u0000'], c: '\u0000' }, 'body.b.1', /NUL/],
  ])('%s', (_label, value, path, error) => {
    const problem = findInputProblem(value, 'body');
    expect(problem?.path).toBe(path);
    expect(problem?.error).toMatch(error);
  });

  it.each<[string, unknown]>([
    ['plain text', { name: 'Acme A/S', n: 1, ok: true, none: null }],
    ['accents, emoji (valid surrogate pairs) and U+FFFD', { name: 'Zoë 😀 𝄞 \uFFFD æøå' }],
    ['control characters Postgres stores', { name: 'tab\there\nnewline\u0001' }],
    ['escaped text that merely looks like an escape', { name: '\\u0000' }],
    ['numbers and booleans only', [1, 2.5, false]],
  ])('accepts %s', (_label, value) => expect(findInputProblem(value, 'body')).toBeNull());

  it(`bounds nesting at ${MAX_INPUT_DEPTH} levels (objects and arrays), iteratively`, () => {
    expect(findInputProblem(nest(MAX_INPUT_DEPTH), 'body')).toBeNull();
    expect(findInputProblem(nest(MAX_INPUT_DEPTH + 1), 'body')).toMatchObject({
      error: `is nested deeper than ${MAX_INPUT_DEPTH} levels`,
    });
    expect(findInputProblem(nestArrays(MAX_INPUT_DEPTH), 'body')).toBeNull();
    expect(findInputProblem(nestArrays(MAX_INPUT_DEPTH + 1), 'body')).toMatchObject({ error: /nested deeper/ });
    // 100,000 levels: refused without a stack overflow.
    expect(findInputProblem(nest(100_000), 'body')).toMatchObject({ error: /nested deeper/ });
  });
});

describe('inputGuard', () => {
  const ctxWith = (parts: { headers?: Record<string, string>; query?: Record<string, unknown>; body?: unknown }) =>
    ({ headers: parts.headers ?? {}, query: parts.query ?? {}, request: { body: parts.body } }) as unknown as Context;
  const run = async (ctx: Context) => {
    let reached = false;
    try {
      await inputGuard(ctx, async () => {
        reached = true;
      });
      return { reached };
    } catch (err) {
      return { reached, err: err as DomainError };
    }
  };

  it.each<[string, Parameters<typeof ctxWith>[0], string]>([
    ['a header', { headers: { 'idempotency-key': 'k\u0000' } }, 'header.idempotency-key'],
    ['a query value', { query: { q: '\u0000' } }, 'query.q'],
    ['a repeated query value', { query: { tag: ['a', 'b\ud800'] } }, 'query.tag.1'],
    ['a query key', { query: { ['x\u0000']: '1' } }, 'query."x\\u0000"'],
    ['a form body', { body: { companyName: 'A\u0000' } }, 'body.companyName'],
    ['a text body', { body: 'hello \u0000' }, 'body'],
    ['JSON sent as text (escaped NUL)', { body: '{"companyName":"\\u0000"}' }, 'body.companyName'],
    ['JSON sent as text (escaped lone surrogate)', { body: '[{"x":"\\ud800"}]' }, 'body.0.x'],
  ])('refuses %s', async (_label, parts, path) => {
    const { reached, err } = await run(ctxWith(parts));
    expect(reached).toBe(false);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'validation', details: [{ path }] });
    expect(err!.message.startsWith(`${path}: `)).toBe(true);
  });

  it('lets clean requests through', async () => {
    expect(await run(ctxWith({ headers: { 'user-agent': 'x' }, query: { q: 'Zoë' }, body: { name: '😀' } }))).toEqual({
      reached: true,
    });
    expect(await run(ctxWith({ body: '{not json \\u0000' }))).toEqual({ reached: true }); // text that is not JSON stays text
  });
});

describe('bodyParseError', () => {
  const ctx = (encoding: string) =>
    ({ get: (h: string) => (h.toLowerCase() === 'content-encoding' ? encoding : '') }) as unknown as Context;
  it('turns a decompression failure into a 400 naming the encoding', () => {
    const zlibError = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR', errno: -3 });
    const mapped = bodyParseError(zlibError, ctx('gzip'));
    expect(mapped).toBeInstanceOf(DomainError);
    expect(mapped).toMatchObject({ code: 'validation', message: expect.stringMatching(/not valid gzip data/) });
  });
  it('keeps client errors and unrelated failures as they are', () => {
    const tooLarge = Object.assign(new Error('request entity too large'), { status: 413 });
    expect(bodyParseError(tooLarge, ctx('gzip'))).toBe(tooLarge);
    const other = new Error('boom');
    expect(bodyParseError(other, ctx(''))).toBe(other);
  });
});

describe('error serializer', () => {
  const statement = `insert into "person" ("email") values ('ada@example.test') - duplicate key value violates unique constraint "person_email"`;
  it('logs a database error as SQLSTATE, condition and constraint, without statement, values or detail', () => {
    const pgLike = Object.assign(new Error(statement), {
      name: 'UniqueConstraintViolationException',
      code: '23505',
      severity: 'ERROR',
      routine: '_bt_check_unique',
      detail: 'Key (email)=(ada@example.test) already exists.',
      table: 'person',
      constraint: 'person_email',
    });
    pgLike.stack = `${pgLike.name}: ${statement}\n    at somewhere (file.ts:1:1)`;
    const out = serializeError(pgLike) as Record<string, unknown>;
    expect(out).toMatchObject({
      type: 'UniqueConstraintViolationException',
      code: '23505',
      condition: 'unique_violation',
      table: 'person',
      constraint: 'person_email',
    });
    expect(JSON.stringify(out)).not.toContain('ada@example.test');
    expect(out.stack).toBe('    at somewhere (file.ts:1:1)');
  });
  it('withholds statements in wrapped errors, causes and strings; leaves other messages alone', () => {
    const wrapped = new Error('could not save', { cause: new Error(statement) });
    const out = JSON.stringify(serializeError(wrapped));
    expect(out).toContain('could not save');
    expect(out).not.toContain('ada@example.test');
    expect(withoutStatement(statement)).toBe('[statement withheld] database error');
    expect(withoutStatement('provider timed out - retrying')).toBe('provider timed out - retrying');
    expect(serializeError(new DomainError('validation', 'name: is required'))).toMatchObject({
      type: 'DomainError',
      message: 'name: is required',
      code: 'validation',
    });
  });

  it('a logger built by createLogger applies it to err and error, objects and strings', () => {
    const lines: string[] = [];
    const log = createLogger('info', 'test', { write: (line: string) => void lines.push(line) });
    log.error({ err: new Error(statement) }, 'one');
    log.warn({ err: statement }, 'two');
    log.warn({ eventId: 'e1', error: statement }, 'three');
    expect(lines).toHaveLength(3);
    expect(lines.join('')).not.toContain('ada@example.test');
    expect(JSON.parse(lines[2]!)).toMatchObject({ eventId: 'e1', error: '[statement withheld] database error' });
  });
});
