import { createAuthFailureLimiter } from '../../platform/http/auth-failures';

describe('failed-authentication limiter (per address, one-minute windows)', () => {
  it('blocks at the limit until the window ends, per address', () => {
    const limiter = createAuthFailureLimiter(3);
    const t0 = 1_000_000;
    for (let i = 0; i < 2; i++) limiter.recordFailure('a', t0 + i);
    expect(limiter.blockedFor('a', t0 + 10)).toBeUndefined(); // 2 of 3
    limiter.recordFailure('a', t0 + 20);
    expect(limiter.blockedFor('a', t0 + 30)).toBe(60); // ceil((t0 + 60000 - (t0 + 30)) / 1000)
    expect(limiter.blockedFor('a', t0 + 59_500)).toBe(1);
    expect(limiter.blockedFor('b', t0 + 30)).toBeUndefined();
    // A new window starts fresh.
    expect(limiter.blockedFor('a', t0 + 60_000)).toBeUndefined();
    limiter.recordFailure('a', t0 + 60_000);
    expect(limiter.blockedFor('a', t0 + 60_001)).toBeUndefined();
  });

  it('0 turns it off', () => {
    const limiter = createAuthFailureLimiter(0);
    for (let i = 0; i < 100; i++) limiter.recordFailure('a');
    expect(limiter.blockedFor('a')).toBeUndefined();
  });
});
