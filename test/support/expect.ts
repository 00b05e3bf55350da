// Shared assertions on API answers and on refused calls.
import { DomainError } from '../../platform/errors';
import type { HttpResult } from './app';

/**
 * `res` is an error answer: `status`, and a body `{ error }` whose message matches `message` (a RegExp,
 * or a string it contains); without `message`, any string.
 */
export function expectError(res: HttpResult, status: number, message?: RegExp | string): void {
  expect(res.status).toBe(status);
  if (message === undefined) expect(typeof res.body.error).toBe('string');
  else expect(res.body.error).toMatch(message);
}

/**
 * POSTs `body` to `path` and expects a 400 whose error matches `message`, with nothing written: `count`
 * (e.g. the list's total) answers the same before and after.
 */
export async function expectRejectedCreate(
  http: { post(path: string, body?: unknown): Promise<HttpResult> },
  path: string,
  body: unknown,
  message: RegExp | string,
  count: () => Promise<unknown>,
): Promise<void> {
  const before = await count();
  expectError(await http.post(path, body), 400, message);
  expect(await count()).toEqual(before);
}

/** The DomainError `promise` rejects with; fails when it resolves or rejects with anything else. */
export async function domainErrorOf(promise: Promise<unknown>): Promise<DomainError> {
  const err = await promise.then(
    () => new Error('expected a DomainError; the call succeeded'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

/** `res` is a 201 whose `data` matches `expected` (toMatchObject); returns that data (the created record). */
export function expectCreated(res: HttpResult, expected: Record<string, unknown>): HttpResult['body'] {
  expect(res.status).toBe(201);
  expect(res.body.data).toMatchObject(expected);
  return res.body.data;
}

/** GET `path` followed by each of `queries` answers 400 with an error message (a failure names the query). */
export async function expectQueriesRefused(
  http: { get(path: string): Promise<HttpResult> },
  path: string,
  queries: readonly string[],
): Promise<void> {
  for (const q of queries) {
    const res = await http.get(`${path}${q}`);
    expect([q, res.status]).toEqual([q, 400]);
    expect(typeof res.body.error).toBe('string');
  }
}

/** `res` is a 200 whose `data` matches `expected` (toMatchObject); returns that data. */
export function expectOk(res: HttpResult, expected: Record<string, unknown>): HttpResult['body'] {
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject(expected);
  return res.body.data;
}
