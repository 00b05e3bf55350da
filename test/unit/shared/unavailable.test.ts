import { ConnectionException, DeadlockException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { renderError } from '../../../platform/http/errors';
import { isDependencyUnavailable, isRpcUnavailable, isTransactionConflict } from '../../../platform/shared/unavailable';

const withCode = (code: string | number, message = 'boom'): Error => Object.assign(new Error(message), { code });

describe('isDependencyUnavailable (database outage → 503, not 500)', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['connection reset', withCode('ECONNRESET')],
    [
      'admin shutdown (server stopping, pg_terminate_backend)',
      withCode('57P01', 'terminating connection due to administrator command'),
    ],
    ['crash shutdown', withCode('57P02')],
    ['server starting up', withCode('57P03', 'the database system is starting up')],
    ['too many connections', withCode('53300')],
    ['connection failure class 08', withCode('08006')],
    ['pg: connection terminated', new Error('Connection terminated unexpectedly')],
    [
      'knex: pool acquire timeout',
      new Error(
        'Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?',
      ),
    ],
    ['knex: unable to acquire', new Error('Unable to acquire a connection')],
    ['pg: client connection error', new Error('Client has encountered a connection error and is not queryable')],
    ['MikroORM ConnectionException', new ConnectionException(new Error('gone'))],
    [
      'AggregateError of per-address connects',
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], ''),
    ],
    ['wrapped in a cause', new Error('query failed', { cause: withCode('ECONNREFUSED') })],
  ])('%s', (_label, err) => {
    expect(isDependencyUnavailable(err)).toBe(true);
  });

  it.each([
    [
      'a unique violation',
      new UniqueConstraintViolationException(Object.assign(new Error('duplicate key'), { code: '23505' })),
    ],
    ['a missing table (a bug)', withCode('42P01', 'relation "x" does not exist')],
    ['a syntax error', withCode('42601')],
    ['a plain error', new Error('something else')],
    ['not an error', 'ECONNREFUSED'],
    ['null', null],
  ])('not for %s', (_label, err) => {
    expect(isDependencyUnavailable(err)).toBe(false);
  });

  it('does not loop on a cyclic cause chain', () => {
    const a = new Error('a') as Error & { cause?: unknown };
    a.cause = a;
    expect(isDependencyUnavailable(a)).toBe(false);
  });
});

describe('isRpcUnavailable (workflow engine down → 503)', () => {
  it.each([
    [
      'UNAVAILABLE in the cause',
      Object.assign(new Error('Failed to start Workflow'), {
        cause: withCode(14, '14 UNAVAILABLE: No connection established'),
      }),
    ],
    [
      'DEADLINE_EXCEEDED in the cause',
      Object.assign(new Error('Failed to start Workflow'), {
        cause: withCode(4, '4 DEADLINE_EXCEEDED: Deadline exceeded'),
      }),
    ],
    ['a gRPC message only', new Error('14 UNAVAILABLE: connection refused')],
    ['a socket error', withCode('ECONNREFUSED')],
  ])('%s', (_label, err) => {
    expect(isRpcUnavailable(err)).toBe(true);
  });

  it.each([
    [
      'INVALID_ARGUMENT',
      Object.assign(new Error('Failed to start Workflow'), {
        cause: withCode(3, '3 INVALID_ARGUMENT: bad search attribute'),
      }),
    ],
    ['a plain error', new Error('nope')],
  ])('not for %s', (_label, err) => {
    expect(isRpcUnavailable(err)).toBe(false);
  });
});

describe('isTransactionConflict (deadlock or serialization failure → 503 with Retry-After, not 500)', () => {
  it.each([
    ['deadlock_detected', withCode('40P01', 'deadlock detected')],
    ['serialization_failure', withCode('40001', 'could not serialize access')],
    ['MikroORM DeadlockException', new DeadlockException(withCode('40P01', 'deadlock detected'))],
    ['wrapped in a cause', new Error('tx failed', { cause: withCode('40P01') })],
  ])('%s', (_label, err) => {
    expect(isTransactionConflict(err)).toBe(true);
    const rendered = renderError(err);
    expect(rendered).toMatchObject({ status: 503, body: { code: 'unavailable' }, headers: { 'Retry-After': '1' } });
    expect(String(rendered?.body.error)).toMatch(/rolled back \(nothing was written\); retry$/);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a lock wait timeout', withCode('55P03')],
    ['a plain error', new Error('40P01')],
  ])('not for %s', (_label, err) => {
    expect(isTransactionConflict(err)).toBe(false);
  });
});
