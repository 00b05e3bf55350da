import { exponentialBackoff } from '../../../platform/outbox/backoff';

describe('exponentialBackoff', () => {
  const backoff = exponentialBackoff({ initialMs: 1000, maxMs: 300_000 });

  it.each([
    [0, 1000],
    [1, 1000],
    [2, 2000],
    [3, 4000],
    [6, 32_000],
    [9, 256_000],
    [10, 300_000],
    [50, 300_000],
    [10_000, 300_000],
  ])('after %i attempts waits %i ms', (attempts, expected) => {
    expect(backoff(attempts)).toBe(expected);
  });

  it('adds at most the jitter fraction and never exceeds the cap', () => {
    const jittered = exponentialBackoff({ initialMs: 1000, maxMs: 5000, jitter: 0.5 });
    for (let i = 0; i < 200; i++) {
      const first = jittered(1);
      expect(first).toBeGreaterThanOrEqual(1000);
      expect(first).toBeLessThanOrEqual(1500);
      expect(jittered(20)).toBe(5000);
    }
  });
});
